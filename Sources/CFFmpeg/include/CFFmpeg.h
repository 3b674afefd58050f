// FFmpeg's demuxers and decoders (libavformat, libavcodec, libavutil), loaded when the first
// network camera is opened rather than linked: a program that never opens one never loads
// FFmpeg's libraries (and the hundred-odd they pull in), and runs where they are not installed.
//
// The headers (libav*-dev) give the types and the signatures; `ed_ffmpeg_load` opens the
// libraries by the sonames of those headers' major versions and resolves the functions used into
// a table, each entry typed from its declaration. Nothing here calls FFmpeg directly, so nothing
// links it: a direct call from Swift fails to link.
//
// Also what Swift cannot import: error codes are function-like macros (FFERRTAG, AVERROR).
#ifndef CFFMPEG_H
#define CFFMPEG_H

#include <errno.h>
#include <stddef.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>

#define ED_FFMPEG_ENTRY(name) __typeof__(name) *_Nonnull name

/// The FFmpeg functions Eyedropper calls, resolved from the loaded libraries.
typedef struct ed_ffmpeg {
    // libavutil
    ED_FFMPEG_ENTRY(av_dict_free);
    ED_FFMPEG_ENTRY(av_dict_set);
    ED_FFMPEG_ENTRY(av_frame_alloc);
    ED_FFMPEG_ENTRY(av_frame_free);
    ED_FFMPEG_ENTRY(av_frame_unref);
    ED_FFMPEG_ENTRY(av_get_pix_fmt_name);
    ED_FFMPEG_ENTRY(av_log_set_level);
    ED_FFMPEG_ENTRY(av_strerror);
    // libavcodec
    ED_FFMPEG_ENTRY(av_packet_alloc);
    ED_FFMPEG_ENTRY(av_packet_free);
    ED_FFMPEG_ENTRY(av_packet_unref);
    ED_FFMPEG_ENTRY(avcodec_alloc_context3);
    ED_FFMPEG_ENTRY(avcodec_free_context);
    ED_FFMPEG_ENTRY(avcodec_get_name);
    ED_FFMPEG_ENTRY(avcodec_open2);
    ED_FFMPEG_ENTRY(avcodec_parameters_to_context);
    ED_FFMPEG_ENTRY(avcodec_receive_frame);
    ED_FFMPEG_ENTRY(avcodec_send_packet);
    // libavformat
    ED_FFMPEG_ENTRY(av_find_best_stream);
    ED_FFMPEG_ENTRY(av_read_frame);
    ED_FFMPEG_ENTRY(avformat_alloc_context);
    ED_FFMPEG_ENTRY(avformat_close_input);
    ED_FFMPEG_ENTRY(avformat_find_stream_info);
    ED_FFMPEG_ENTRY(avformat_open_input);
} ed_ffmpeg;

#undef ED_FFMPEG_ENTRY

/// Loads FFmpeg's libraries and resolves the table, once: later calls return the same table.
/// Thread-safe. Quiets FFmpeg's own log (its messages become the errors Eyedropper throws).
/// Returns NULL when a library or a function is missing, with what the dynamic linker said in
/// `error` (e.g. "libavformat.so.59: cannot open shared object file: No such file or
/// directory"); a later call tries again (the libraries may have been installed since).
const ed_ffmpeg *_Nullable ed_ffmpeg_load(char *_Nonnull error, size_t size);

/// The libraries loaded, by soname, e.g. "libavformat.so.59 libavcodec.so.59 libavutil.so.57".
extern const char *_Nonnull const ed_ffmpeg_sonames;
/// The Debian packages that install them, e.g. "libavformat59 libavcodec59 libavutil57".
extern const char *_Nonnull const ed_ffmpeg_packages;

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

#endif
