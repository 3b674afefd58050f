// libyuv's umbrella header; its C entry points are what the benchmarks compare against.
#include <libyuv.h>
