// FFmpeg's demuxers and decoders (libavformat, libavcodec, libavutil), and what Swift cannot
// import from them: error codes are function-like macros (FFERRTAG, AVERROR), and a format
// context's interrupt callback is a C function pointer whose opaque value is ours.
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>

static inline int ed_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int ed_averror_eof(void) { return AVERROR_EOF; }
static inline int ed_averror_exit(void) { return AVERROR_EXIT; }
static inline int ed_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int ed_averror_http_unauthorized(void) { return AVERROR_HTTP_UNAUTHORIZED; }
static inline int ed_averror_http_forbidden(void) { return AVERROR_HTTP_FORBIDDEN; }
static inline int ed_averror_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int ed_averror_http_other_4xx(void) { return AVERROR_HTTP_OTHER_4XX; }
static inline int ed_averror_http_server_error(void) { return AVERROR_HTTP_SERVER_ERROR; }
static inline int ed_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int ed_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int ed_averror_again(void) { return AVERROR(EAGAIN); }
