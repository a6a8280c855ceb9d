#!/bin/bash

__ward_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__ward_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__ward_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__ward_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_ward() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=(--home --site --user --batch -c --password-fd --password-file --format --on-error)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--user')
        return
        ;;
    '--batch')
        __ward_add_completions -f
        return
        ;;
    '-c')
        return
        ;;
    '--password-fd')
        return
        ;;
    '--password-file')
        __ward_add_completions -f
        return
        ;;
    '--format')
        __ward_add_completions -W 'text'$'\n''json'$'\n''csv'
        return
        ;;
    '--on-error')
        __ward_add_completions -W 'stop'$'\n''continue'
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    shell|exec|demo|import|db|user|sessions|lock|audit|config|plugins|help)
        # Offer subcommand argument completions
        "_ward_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'shell exec demo import db user sessions lock audit config plugins help' -- "${cur}"))
        ;;
    esac
}

_ward_shell() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --user --batch -c --password-fd --password-file --format --on-error)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--user')
        return
        ;;
    '--batch')
        __ward_add_completions -f
        return
        ;;
    '-c')
        return
        ;;
    '--password-fd')
        return
        ;;
    '--password-file')
        __ward_add_completions -f
        return
        ;;
    '--format')
        __ward_add_completions -W 'text'$'\n''json'$'\n''csv'
        return
        ;;
    '--on-error')
        __ward_add_completions -W 'stop'$'\n''continue'
        return
        ;;
    esac
}

_ward_exec() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --user)
    __ward_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--user')
        return
        ;;
    esac
}

_ward_demo() {
    repeating_flags=()
    non_repeating_flags=(--no-shell --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --patients --seed)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--patients')
        return
        ;;
    '--seed')
        return
        ;;
    esac
}

_ward_import() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_db() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __ward_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    migrate)
        # Offer subcommand argument completions
        "_ward_db_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'migrate' -- "${cur}"))
        ;;
    esac
}

_ward_db_migrate() {
    repeating_flags=()
    non_repeating_flags=(--force --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --session-role)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--session-role')
        return
        ;;
    esac
}

_ward_user() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __ward_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    add|passwd|remove|list|unlock|disable)
        # Offer subcommand argument completions
        "_ward_user_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'add passwd remove list unlock disable' -- "${cur}"))
        ;;
    esac
}

_ward_user_add() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --pam --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --role)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--role')
        __ward_add_completions -W 'clinician'$'\n''clerk'$'\n''auditor'
        return
        ;;
    esac
}

_ward_user_passwd() {
    repeating_flags=()
    non_repeating_flags=(--password-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_user_remove() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_user_list() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_user_unlock() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_user_disable() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_sessions() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --format)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--format')
        __ward_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_ward_lock() {
    repeating_flags=()
    non_repeating_flags=(--all --password-stdin --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --user --session --as)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--user')
        return
        ;;
    '--session')
        return
        ;;
    '--as')
        return
        ;;
    esac
}

_ward_audit() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __ward_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    verify|show|report|rotate)
        # Offer subcommand argument completions
        "_ward_audit_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'verify show report rotate' -- "${cur}"))
        ;;
    esac
}

_ward_audit_verify() {
    repeating_flags=()
    non_repeating_flags=(--repair --all-hosts --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --key-file --start-after)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--key-file')
        return
        ;;
    '--start-after')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_audit_show() {
    repeating_flags=()
    non_repeating_flags=(--all-hosts --version -h --help)
    repeating_options=(--user --mrn --action --outcome --kind)
    non_repeating_options=(--home --site --since --until --count-by --format)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--user')
        return
        ;;
    '--mrn')
        return
        ;;
    '--action')
        __ward_add_completions -W 'list'$'\n''open'$'\n''read'$'\n''write'$'\n''close'$'\n''break-glass'
        return
        ;;
    '--since')
        return
        ;;
    '--until')
        return
        ;;
    '--outcome')
        __ward_add_completions -W 'ok'$'\n''denied'$'\n''failed'$'\n''started'
        return
        ;;
    '--kind')
        __ward_add_completions -W 'sign-on'$'\n''sign-on-failed'$'\n''lock'$'\n''unlock'$'\n''unlock-failed'$'\n''command'$'\n''access'$'\n''denied'$'\n''abandoned'$'\n''break-glass'$'\n''suspend'$'\n''resume'$'\n''signal'$'\n''sign-off'$'\n''rotate'$'\n''repair'$'\n''user-add'$'\n''user-remove'$'\n''password-change'$'\n''unlock-account'$'\n''user-disable'$'\n''import'$'\n''demo'$'\n''db-migrate'$'\n''ssh-command'$'\n''audit-read'$'\n''lock-request'$'\n''exec-start'$'\n''exec-denied'$'\n''exec-exit'$'\n''input'
        return
        ;;
    '--count-by')
        __ward_add_completions -W 'user'$'\n''mrn'$'\n''action'$'\n''day'$'\n''outcome'
        return
        ;;
    '--format')
        __ward_add_completions -W 'text'$'\n''json'$'\n''csv'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_audit_report() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --mrn --since --until --format)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--mrn')
        return
        ;;
    '--since')
        return
        ;;
    '--until')
        return
        ;;
    '--format')
        __ward_add_completions -W 'text'$'\n''json'$'\n''csv'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_audit_rotate() {
    repeating_flags=()
    non_repeating_flags=(--renamed --version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --key-file)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--key-file')
        return
        ;;
    esac
}

_ward_config() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __ward_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    check)
        # Offer subcommand argument completions
        "_ward_config_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'check' -- "${cur}"))
        ;;
    esac
}

_ward_config_check() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site --for-user --for-role --format)
    __ward_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    '--for-user')
        return
        ;;
    '--for-role')
        __ward_add_completions -W 'clinician'$'\n''clerk'$'\n''auditor'
        return
        ;;
    '--format')
        __ward_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_plugins() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=(--home --site)
    __ward_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--home')
        __ward_add_completions -d
        return
        ;;
    '--site')
        __ward_add_completions -f
        return
        ;;
    esac
}

_ward_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __ward_offer_flags_options -1
    __ward_add_completions -W 'shell'$'\n''exec'$'\n''demo'$'\n''import'$'\n''db'$'\n''user'$'\n''sessions'$'\n''lock'$'\n''audit'$'\n''config'$'\n''plugins'$'\n''help'
}

complete -o filenames -F _ward ward
