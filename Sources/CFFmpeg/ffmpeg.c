#include "CFFmpeg.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The sonames of the headers built against: an FFmpeg of another major version has another ABI.
#define ED_SONAME(library, major) "lib" #library ".so." AV_STRINGIFY(major)
#define ED_PACKAGE(library, major) "lib" #library AV_STRINGIFY(major)
#define ED_AVUTIL ED_SONAME(avutil, LIBAVUTIL_VERSION_MAJOR)
#define ED_AVCODEC ED_SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR)
#define ED_AVFORMAT ED_SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR)

const char *const ed_ffmpeg_sonames = ED_AVFORMAT " " ED_AVCODEC " " ED_AVUTIL;
const char *const ed_ffmpeg_packages = ED_PACKAGE(avformat, LIBAVFORMAT_VERSION_MAJOR) " " ED_PACKAGE(
    avcodec, LIBAVCODEC_VERSION_MAJOR) " " ED_PACKAGE(avutil, LIBAVUTIL_VERSION_MAJOR);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ed_ffmpeg table;
static int loaded;

static void *open_library(const char *soname, char *error, size_t size) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(error, size, "%s", dlerror());
    return handle;
}

#define ED_RESOLVE(handle, name)                                                          \
    do {                                                                                  \
        void *symbol = dlsym(handle, #name);                                              \
        if (!symbol) {                                                                    \
            snprintf(error, size, "%s", dlerror()); /* "LIB: undefined symbol: NAME" */  \
            return 0;                                                                     \
        }                                                                                 \
        resolved.name = (__typeof__(resolved.name))symbol;                                \
    } while (0)

// Resolves every entry into `table`, or none. The handles stay open for the process's life (a
// stream may be open at any time); one opened before a later one fails stays too, harmlessly.
static int load(char *error, size_t size) {
    void *avutil = open_library(ED_AVUTIL, error, size);
    if (!avutil) return 0;
    void *avcodec = open_library(ED_AVCODEC, error, size);
    if (!avcodec) return 0;
    void *avformat = open_library(ED_AVFORMAT, error, size);
    if (!avformat) return 0;
    ed_ffmpeg resolved;
    ED_RESOLVE(avutil, av_dict_free);
    ED_RESOLVE(avutil, av_dict_set);
    ED_RESOLVE(avutil, av_frame_alloc);
    ED_RESOLVE(avutil, av_frame_free);
    ED_RESOLVE(avutil, av_frame_unref);
    ED_RESOLVE(avutil, av_get_pix_fmt_name);
    ED_RESOLVE(avutil, av_log_set_level);
    ED_RESOLVE(avutil, av_strerror);
    ED_RESOLVE(avcodec, av_packet_alloc);
    ED_RESOLVE(avcodec, av_packet_free);
    ED_RESOLVE(avcodec, av_packet_unref);
    ED_RESOLVE(avcodec, avcodec_alloc_context3);
    ED_RESOLVE(avcodec, avcodec_free_context);
    ED_RESOLVE(avcodec, avcodec_get_name);
    ED_RESOLVE(avcodec, avcodec_open2);
    ED_RESOLVE(avcodec, avcodec_parameters_to_context);
    ED_RESOLVE(avcodec, avcodec_receive_frame);
    ED_RESOLVE(avcodec, avcodec_send_packet);
    ED_RESOLVE(avformat, av_find_best_stream);
    ED_RESOLVE(avformat, av_read_frame);
    ED_RESOLVE(avformat, avformat_alloc_context);
    ED_RESOLVE(avformat, avformat_close_input);
    ED_RESOLVE(avformat, avformat_find_stream_info);
    ED_RESOLVE(avformat, avformat_open_input);
    resolved.av_log_set_level(AV_LOG_QUIET);
    table = resolved;
    return 1;
}

const ed_ffmpeg *ed_ffmpeg_load(char *error, size_t size) {
    pthread_mutex_lock(&lock);
    if (!loaded) loaded = load(error, size);
    pthread_mutex_unlock(&lock);
    return loaded ? &table : NULL;
}
