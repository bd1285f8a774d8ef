// Linux calls the idle executor needs that Swift's Glibc module does not export.
#ifndef C_ATTENDANT_EXECUTOR_H
#define C_ATTENDANT_EXECUTOR_H

#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>

static inline int c_attendant_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

static inline int c_attendant_timerfd(clockid_t clock) { return timerfd_create(clock, TFD_CLOEXEC | TFD_NONBLOCK); }

// Arms the timer for an absolute deadline in nanoseconds on its clock; 0 disarms it.
static inline int c_attendant_timerfd_arm(int fd, int64_t deadline) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = deadline / 1000000000;
    spec.it_value.tv_nsec = deadline % 1000000000;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

#endif
