// The C surface Ward needs from Linux-PAM (libpam0g-dev): pam_start, pam_authenticate,
// pam_acct_mgmt, pam_end and the conversation's types. Only the application side: Ward is a
// PAM client, never a module.
#ifndef WARD_CPAM_SHIM_H
#define WARD_CPAM_SHIM_H

#include <security/pam_appl.h>

#endif
