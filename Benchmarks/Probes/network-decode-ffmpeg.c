// FFmpeg's side of the network-camera measurement (network-decoders.sh): demux URL with
// libavformat (RTSP over TCP) and decode N frames with libavcodec, one slice thread or THREADS,
// reading each frame in the decoder's own planes (one luma byte, as a converter would start).
// Prints the first frame's format, colorimetry and strides, then the CPU this process took per
// frame after the first (getrusage: utime + stime).
//   network-decode-ffmpeg URL N [THREADS]
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>
#include <sys/resource.h>
#include <stdio.h>
#include <time.h>
static double cpu(void){struct rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_stime.tv_sec+(u.ru_utime.tv_usec+u.ru_stime.tv_usec)/1e6;}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
  int n=atoi(argv[2]); int threads=argc>3?atoi(argv[3]):1;
  AVFormatContext*fc=NULL; AVDictionary*o=NULL; av_dict_set(&o,"rtsp_transport","tcp",0);
  if(avformat_open_input(&fc,argv[1],NULL,&o)<0){puts("open failed");return 1;}
  avformat_find_stream_info(fc,NULL);
  int si=av_find_best_stream(fc,AVMEDIA_TYPE_VIDEO,-1,-1,NULL,0);
  const AVCodec*c=avcodec_find_decoder(fc->streams[si]->codecpar->codec_id);
  AVCodecContext*cc=avcodec_alloc_context3(c); avcodec_parameters_to_context(cc,fc->streams[si]->codecpar);
  cc->thread_count=threads; cc->thread_type=FF_THREAD_SLICE;
  avcodec_open2(cc,c,NULL);
  AVPacket*p=av_packet_alloc(); AVFrame*f=av_frame_alloc();
  int got=0; double c0=0,t0=0; long sum=0;
  while(got<n && av_read_frame(fc,p)>=0){
    if(p->stream_index==si){ avcodec_send_packet(cc,p);
      while(avcodec_receive_frame(cc,f)==0){
        if(got==0){c0=cpu();t0=now();printf("%dx%d fmt=%s space=%s range=%s linesize=%d,%d,%d\n",f->width,f->height,av_get_pix_fmt_name(f->format),av_color_space_name(f->colorspace),av_color_range_name(f->color_range),f->linesize[0],f->linesize[1],f->linesize[2]);}
        sum+=f->data[0][f->linesize[0]*(f->height/2)+f->width/2]; got++; av_frame_unref(f);} }
    av_packet_unref(p);}
  double dc=cpu()-c0, dt=now()-t0;
  printf("ffmpeg: %d frames in %.2f s wall, %.2f ms CPU/frame (threads %d)\n",got-1,dt,dc/(got-1)*1e3,threads);
  return 0;}
