function __ward_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __ward_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __ward_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __ward_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __ward_parse_tokens -S
    set -l unparsed_tokens (__ward_tokens -pc)
    switch $unparsed_tokens[1]
    case 'ward'
        __ward_parse_subcommand 0 'home=' 'site=' 'user=' 'batch=' 'c=' 'password-fd=' 'password-file=' 'format=' 'on-error=' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'shell'
            __ward_parse_subcommand 0 'home=' 'site=' 'user=' 'batch=' 'c=' 'password-fd=' 'password-file=' 'format=' 'on-error=' 'version' 'h/help'
        case 'exec'
            __ward_parse_subcommand -r 1 'home=' 'site=' 'user=' 'version' 'h/help'
        case 'demo'
            __ward_parse_subcommand 0 'home=' 'site=' 'patients=' 'seed=' 'no-shell' 'version' 'h/help'
        case 'import'
            __ward_parse_subcommand -r 1 'home=' 'site=' 'version' 'h/help'
        case 'db'
            __ward_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'migrate'
                __ward_parse_subcommand 0 'home=' 'site=' 'force' 'session-role=' 'version' 'h/help'
            end
        case 'user'
            __ward_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __ward_parse_subcommand 1 'home=' 'site=' 'role=' 'password-stdin' 'pam' 'version' 'h/help'
            case 'passwd'
                __ward_parse_subcommand 1 'home=' 'site=' 'password-stdin' 'version' 'h/help'
            case 'remove'
                __ward_parse_subcommand 1 'home=' 'site=' 'version' 'h/help'
            case 'list'
                __ward_parse_subcommand 0 'home=' 'site=' 'version' 'h/help'
            case 'unlock'
                __ward_parse_subcommand 1 'home=' 'site=' 'version' 'h/help'
            case 'disable'
                __ward_parse_subcommand 1 'home=' 'site=' 'version' 'h/help'
            end
        case 'sessions'
            __ward_parse_subcommand 0 'home=' 'site=' 'format=' 'version' 'h/help'
        case 'lock'
            __ward_parse_subcommand 0 'home=' 'site=' 'user=' 'session=' 'all' 'as=' 'password-stdin' 'version' 'h/help'
        case 'audit'
            __ward_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'verify'
                __ward_parse_subcommand 1 'home=' 'site=' 'key-file=' 'start-after=' 'repair' 'all-hosts' 'version' 'h/help'
            case 'show'
                __ward_parse_subcommand 1 'home=' 'site=' 'user=+' 'mrn=+' 'action=+' 'since=' 'until=' 'outcome=+' 'kind=+' 'count-by=' 'format=' 'all-hosts' 'version' 'h/help'
            case 'report'
                __ward_parse_subcommand 1 'home=' 'site=' 'mrn=' 'since=' 'until=' 'format=' 'version' 'h/help'
            case 'rotate'
                __ward_parse_subcommand 1 'home=' 'site=' 'key-file=' 'renamed' 'version' 'h/help'
            end
        case 'config'
            __ward_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'check'
                __ward_parse_subcommand 1 'home=' 'site=' 'for-user=' 'for-role=' 'format=' 'version' 'h/help'
            end
        case 'plugins'
            __ward_parse_subcommand 0 'home=' 'site=' 'version' 'h/help'
        case 'help'
            __ward_parse_subcommand -r 1 'version'
        end
    end
end

function __ward_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __ward_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __ward_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __ward_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__ward_tokens -p)
    if test -z "$(__ward_tokens -t)"
        set -l index (count (__ward_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'ward' -f
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" user' -l 'user' -d 'The user to sign on as; asked for when missing.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" batch' -l 'batch' -d 'Run shell commands from a script, one per line (\'-\' for standard input).' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" c' -s 'c' -d 'Run one shell command and exit with its status, as psql -c does.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" password-fd' -l 'password-fd' -d 'Batch: read the password from this open descriptor (its first line), once.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" password-file' -l 'password-file' -d 'Batch: read the password from this file (its first line); it must be yours, mode 0600.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" format' -l 'format' -d 'Batch: results as text, one JSON object per command, or CSV tables.' -rfka 'text json csv'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" on-error' -l 'on-error' -d 'Batch: stop at the first failing command, or run on and exit 1 at the end.' -rfka 'stop continue'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'shell' -d 'The records shell (the default): on the terminal, a script with --batch, or one command with -c.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'exec' -d 'Run a program the site allows (psql, sqlite3) under Ward\'s sign-on, audit log and lock.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'demo' -d 'Make a home of synthetic patients and a user demo/demo, then start the shell.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'import' -d 'Import FHIR R4 bundles (Synthea output) and bulk-data NDJSON exports into the records.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'db' -d 'Create or upgrade the records database.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'user' -d 'Add, change, remove, list, disable and unlock the users who may sign on.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'sessions' -d 'List the live sessions: user, role, state (signed-on or locked), terminal, SSH peer, start.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'lock' -d 'Lock live sessions now: a user\'s, one session, or all; each is wiped and asks for the password.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'audit' -d 'Check, read or rotate the audit log.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'config' -d 'Check the site policy.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'plugins' -d 'List the built-in plugins and show the site\'s chain.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" user' -l 'user' -d 'The user to sign on as; asked for when missing.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" batch' -l 'batch' -d 'Run shell commands from a script, one per line (\'-\' for standard input).' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" c' -s 'c' -d 'Run one shell command and exit with its status, as psql -c does.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" password-fd' -l 'password-fd' -d 'Batch: read the password from this open descriptor (its first line), once.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" password-file' -l 'password-file' -d 'Batch: read the password from this file (its first line); it must be yours, mode 0600.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" format' -l 'format' -d 'Batch: results as text, one JSON object per command, or CSV tables.' -rfka 'text json csv'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" on-error' -l 'on-error' -d 'Batch: stop at the first failing command, or run on and exit 1 at the end.' -rfka 'stop continue'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward shell" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward exec" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward exec" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward exec" user' -l 'user' -d 'The user to sign on as; asked for when missing.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward exec" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward exec" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" patients' -l 'patients' -d 'How many synthetic patients to make.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" seed' -l 'seed' -d 'The random seed: the same seed makes the same patients.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" no-shell' -l 'no-shell' -d 'Make the home and exit instead of starting the shell.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward demo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward import" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward import" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward import" -ge 1' -F
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward import" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward db" -eq 1' -fa 'migrate' -d 'Create the records schema, or bring it up to date.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db migrate" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db migrate" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db migrate" force' -l 'force' -d 'Migrate even while Ward sessions are connected.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db migrate" session-role' -l 'session-role' -d 'Leave this PostgreSQL role able to do what sessions do, and nothing else.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db migrate" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward db migrate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward user" -eq 1' -fa 'add' -d 'Add a user who may sign on.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward user" -eq 1' -fa 'passwd' -d 'Change a user\'s password.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward user" -eq 1' -fa 'remove' -d 'Remove a user; they can no longer sign on.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward user" -eq 1' -fa 'list' -d 'List the users, their roles, their last sign-on and any lockout.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward user" -eq 1' -fa 'unlock' -d 'Unlock an account locked after too many failed sign-on attempts.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward user" -eq 1' -fa 'disable' -d 'Disable a user: no sign-on until \'ward user unlock\'; their live sessions are signed off.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" role' -l 'role' -d 'What the user may do: clinician, clerk or auditor.' -rfka 'clinician clerk auditor'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" password-stdin' -l 'password-stdin' -d 'Read the password from the first line of standard input instead of asking on the terminal.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" pam' -l 'pam' -d 'Keep no Ward password: the user signs on with the system\'s, checked by PAM.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user passwd" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user passwd" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user passwd" password-stdin' -l 'password-stdin' -d 'Read the password from the first line of standard input instead of asking on the terminal.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user passwd" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user passwd" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user remove" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user remove" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user remove" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user list" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user list" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user list" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user unlock" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user unlock" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user unlock" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user disable" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user disable" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user disable" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward user disable" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward sessions" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward sessions" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward sessions" format' -l 'format' -d 'Output: a table (text), or one JSON object per session (json).' -rfka 'text json'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward sessions" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward sessions" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" user' -l 'user' -d 'Lock every session of this Ward user.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" session' -l 'session' -d 'Lock this session (an ID from \'ward sessions\').' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" all' -l 'all' -d 'Lock every live session.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" as' -l 'as' -d 'Who asks: your Ward user; its password is asked for.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" password-stdin' -l 'password-stdin' -d 'Read the password from the first line of standard input instead of asking on the terminal.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward lock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit" -eq 1' -fa 'verify' -d 'Check the audit log\'s chain of hashes, across its rotated files.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit" -eq 1' -fa 'show' -d 'Print audit records as a table, JSON lines or CSV, or count them.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit" -eq 1' -fa 'report' -d 'Account for every access to one patient\'s record, by day.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit" -eq 1' -fa 'rotate' -d 'Start a new audit log file, chained to the one before.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" key-file' -l 'key-file' -d 'The site\'s audit key, for a log written with one (\'rotate\' defaults to the site\'s audit-log key-file).' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" start-after' -l 'start-after' -d 'The hash of the last record of rotated files you archived: the oldest file here may continue it.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" repair' -l 'repair' -d 'First put back what an interrupted rotation left (recorded), then check.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" all-hosts' -l 'all-hosts' -d 'Check every host\'s chain in the site\'s database.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit verify" -eq 1' -F
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show"' -l 'user' -d 'Only records of this user: signed on, or named by an administrative command. Repeatable.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show"' -l 'mrn' -d 'Only records of what was done to this MRN, or the one MRN that starts so; any case. Repeatable.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show"' -l 'action' -d 'Only what was done to records: list, open, read, write, close or break-glass. Repeatable.' -rfka 'list open read write close break-glass'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" since' -l 'since' -d 'Only records from this time on (UTC, an offset, today, or \'30d\' ago).' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" until' -l 'until' -d 'Only records before this time, written as for --since.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show"' -l 'outcome' -d 'Only records that ended so: ok, denied (refused lines, sign-ons and unlocks too), failed or started. Repeatable.' -rfka 'ok denied failed started'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show"' -l 'kind' -d 'Only records of this kind (sign-on, access, user-add, …); repeat it or separate kinds with commas.' -rfka 'sign-on sign-on-failed lock unlock unlock-failed command access denied abandoned break-glass suspend resume signal sign-off rotate repair user-add user-remove password-change unlock-account user-disable import demo db-migrate ssh-command audit-read lock-request exec-start exec-denied exec-exit input'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" count-by' -l 'count-by' -d 'Count the records by user, mrn, action, day (UTC) or outcome, instead of listing them.' -rfka 'user mrn action day outcome'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" format' -l 'format' -d 'Output: a table (text), the records\' own JSON lines, every field in order (json), or CSV with a header row of every field (csv).' -rfka 'text json csv'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" all-hosts' -l 'all-hosts' -d 'Read every host\'s records from the site\'s database.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit show" -eq 1' -F
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" mrn' -l 'mrn' -d 'The patient\'s MRN, or its start.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" since' -l 'since' -d 'Only accesses from this time on.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" until' -l 'until' -d 'Only accesses before this time.' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" format' -l 'format' -d 'Output: text grouped by day, CSV (one row an access), or one JSON object.' -rfka 'text json csv'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward audit report" -eq 1' -F
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit report" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit rotate" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit rotate" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit rotate" key-file' -l 'key-file' -d 'The site\'s audit key, for a log written with one (\'rotate\' defaults to the site\'s audit-log key-file).' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit rotate" renamed' -l 'renamed' -d 'The log was renamed to FILE.1 already (by logrotate): only start the new file.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit rotate" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward audit rotate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward config" -eq 1' -fa 'check' -d 'Report every error in a site file, or print the effective policy.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward config check" -eq 1' -F
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" for-user' -l 'for-user' -d 'Show the limits this user\'s sessions get (with their role\'s).' -rfka ''
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" for-role' -l 'for-role' -d 'Show the limits for this role.' -rfka 'clinician clerk auditor'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" format' -l 'format' -d 'The problems as text, or one JSON object a line (file, line, key, severity, message, fix).' -rfka 'text json'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward config check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward plugins" home' -l 'home' -d 'The Ward home: records, credentials, audit log.' -rfa '(__ward_complete_directories)'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward plugins" site' -l 'site' -d 'The site policy file.' -rF
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward plugins" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward plugins" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'ward' -n '__ward_should_offer_completions_for_flags_or_options "ward help" version' -l 'version' -d 'Show the version.'
complete -c 'ward' -n '__ward_should_offer_completions_for_positional "ward help" -ge 1' -fka 'shell exec demo import db user sessions lock audit config plugins help'
