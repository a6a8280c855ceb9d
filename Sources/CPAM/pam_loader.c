// Loads libpam at the first PAM check (CPAM.h says why not at start).
#define _GNU_SOURCE
#include "CPAM.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char problem[512];

static int (*start)(const char *, const char *, const struct pam_conv *, pam_handle_t **);
static int (*end)(pam_handle_t *, int);
static int (*set_item)(pam_handle_t *, int, const void *);
static int (*authenticate)(pam_handle_t *, int);
static int (*acct_mgmt)(pam_handle_t *, int);
static const char *(*describe)(pam_handle_t *, int);

/// One of libpam's functions by name, from the process's global scope as a program linked with
/// libpam would find it: a library preloaded in front of libpam (pam_wrapper, in the tests)
/// answers first.
static void *find(const char *name) {
    void *symbol = dlsym(RTLD_DEFAULT, name);
    if (!symbol && !problem[0]) snprintf(problem, sizeof problem, "libpam.so.0 has no %s", name);
    return symbol;
}

static void load(void) {
    if (!dlopen("libpam.so.0", RTLD_NOW | RTLD_GLOBAL)) {
        const char *why = dlerror();
        snprintf(problem, sizeof problem, "%s", why ? why : "libpam.so.0 could not be loaded");
        return;
    }
    start = find("pam_start");
    end = find("pam_end");
    set_item = find("pam_set_item");
    authenticate = find("pam_authenticate");
    acct_mgmt = find("pam_acct_mgmt");
    describe = find("pam_strerror");
}

const char *ward_pam_load(void) {
    pthread_once(&loaded, load);
    return problem[0] ? problem : NULL;
}

int ward_pam_start(const char *service, const char *user, const struct pam_conv *conversation,
                   pam_handle_t **handle) {
    return start(service, user, conversation, handle);
}

int ward_pam_end(pam_handle_t *handle, int status) { return end(handle, status); }

int ward_pam_set_item(pam_handle_t *handle, int type, const void *item) {
    return set_item(handle, type, item);
}

int ward_pam_authenticate(pam_handle_t *handle, int flags) { return authenticate(handle, flags); }

int ward_pam_acct_mgmt(pam_handle_t *handle, int flags) { return acct_mgmt(handle, flags); }

const char *ward_pam_strerror(pam_handle_t *handle, int status) { return describe(handle, status); }
