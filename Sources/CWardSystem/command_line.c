// The command line, given to Swift's runtime from where glibc hands it over.
//
// On Linux the runtime finds argc and argv by walking back from `environ` on the process's
// initial stack. A library preloaded ahead of Ward whose constructor calls setenv (pam_wrapper
// does, and so may a site's monitoring agent) moves `environ` to the heap first, and the runtime
// then finds no arguments at all: `ward --site FILE --user NAME` would run as a bare `ward`. glibc
// passes every constructor the real argc and argv; this one gives them to the runtime, which
// reads an override before looking for itself.

extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) __attribute__((swiftcall));

__attribute__((constructor)) static void ward_keep_command_line(int argc, char **argv, char **envp) {
    (void)envp;
    _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
}
