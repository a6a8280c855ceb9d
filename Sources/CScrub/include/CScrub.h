#ifndef WARD_CSCRUB_H
#define WARD_CSCRUB_H
/// Returns 1. Calling it from the executable keeps the scrubbing free/realloc linked in.
int ward_scrub_installed(void);
#endif
