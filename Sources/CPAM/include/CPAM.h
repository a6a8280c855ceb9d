// Linux-PAM's application side, loaded when first needed: Ward checks passwords through PAM only
// on a site whose `[auth] source` is "pam", and libpam with the two libraries it brings
// (libaudit, libcap-ng) cost every other start about 0.3 ms of loading and relocation. The
// headers are libpam0g-dev's; the library is libpam0g's, found at run time.
#ifndef WARD_CPAM_H
#define WARD_CPAM_H

#include <security/pam_appl.h>

/// Loads libpam once; NULL when it is there, else why not (dlerror's words, or the function it
/// lacks). Call before any function below, which may be used only after a NULL.
const char *ward_pam_load(void);

int ward_pam_start(const char *service, const char *user, const struct pam_conv *conversation,
                   pam_handle_t **handle);
int ward_pam_end(pam_handle_t *handle, int status);
int ward_pam_set_item(pam_handle_t *handle, int type, const void *item);
int ward_pam_authenticate(pam_handle_t *handle, int flags);
int ward_pam_acct_mgmt(pam_handle_t *handle, int flags);
const char *ward_pam_strerror(pam_handle_t *handle, int status);

#endif
