// GStreamer's side of the network-camera measurement (network-decoders.sh): run a launch line
// ending in `appsink name=s`, pull N samples, map each as a GstVideoFrame and read one luma byte.
// Prints the first frame's caps (format, colorimetry and its matrix and range, strides), then the
// CPU this process took per frame after the first (getrusage: utime + stime).
//   network-decode-gstreamer 'rtspsrc location=URL ! ... ! appsink name=s sync=false' N
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <sys/resource.h>
#include <stdio.h>
#include <time.h>
static double cpu(void){struct rusage u;getrusage(RUSAGE_SELF,&u);return u.ru_utime.tv_sec+u.ru_stime.tv_sec+(u.ru_utime.tv_usec+u.ru_stime.tv_usec)/1e6;}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
  gst_init(&argc,&argv); int n=atoi(argv[2]); GError*e=NULL;
  GstElement*pl=gst_parse_launch(argv[1],&e); if(!pl){printf("%s\n",e->message);return 1;}
  GstElement*s=gst_bin_get_by_name(GST_BIN(pl),"s"); gst_element_set_state(pl,GST_STATE_PLAYING);
  int got=0; double c0=0,t0=0; long sum=0;
  while(got<n){ GstSample*sm=gst_app_sink_try_pull_sample(GST_APP_SINK(s),5*GST_SECOND); if(!sm){puts("timeout");break;}
    GstVideoInfo vi; gst_video_info_from_caps(&vi,gst_sample_get_caps(sm));
    GstVideoFrame vf; gst_video_frame_map(&vf,&vi,gst_sample_get_buffer(sm),GST_MAP_READ);
    if(got==0){c0=cpu();t0=now(); gchar*cs=gst_video_colorimetry_to_string(&vi.colorimetry); printf("%dx%d %s colorimetry=%s matrix=%d range=%d stride=%d,%d,%d mems=%u\n",vi.width,vi.height,gst_video_format_to_string(vi.finfo->format),cs,vi.colorimetry.matrix,vi.colorimetry.range,GST_VIDEO_FRAME_PLANE_STRIDE(&vf,0),GST_VIDEO_FRAME_PLANE_STRIDE(&vf,1),GST_VIDEO_FRAME_PLANE_STRIDE(&vf,2),gst_buffer_n_memory(gst_sample_get_buffer(sm)));}
    guint8*y=GST_VIDEO_FRAME_PLANE_DATA(&vf,0); sum+=y[GST_VIDEO_FRAME_PLANE_STRIDE(&vf,0)*(vi.height/2)+vi.width/2];
    gst_video_frame_unmap(&vf); gst_sample_unref(sm); got++; }
  double dc=cpu()-c0, dt=now()-t0;
  printf("gstreamer: %d frames in %.2f s wall, %.2f ms CPU/frame\n",got-1,dt,dc/(got-1)*1e3);
  gst_element_set_state(pl,GST_STATE_NULL); return 0;}
