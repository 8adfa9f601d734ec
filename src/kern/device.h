/* device.h - the simulated device (placeholder until the simulator lands). */
