// libmosquitto, Debian's libmosquitto-dev: MQTT 3.1.1 and 5 client, with its own network thread.
// Nothing else belongs here.
#ifndef EYEDROPPER_CMOSQUITTO_SHIM_H
#define EYEDROPPER_CMOSQUITTO_SHIM_H

#include <mosquitto.h>

#endif
