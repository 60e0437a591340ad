// Package script owns the user's tool scripts: reading their declarations,
// writing the wrappers that run them, and running one call. It knows
// nothing of registries, models or rounds (kernel/tools does) and never
// writes outside the bin directory it is given.
//
// # Declarations
//
// Parse reads <config>/functions/tools/<name>.{sh,py,js,mjs,ts}:
//
//   - bash: argc comment tags. @describe, @option, @flag, @env, @meta and
//     @cmd are understood; other tags (@arg, @alias, @version…) are ignored.
//     Option modifiers: ! required, * repeatable, + required and
//     repeatable, *, (comma list, still an array), ~ (rest, an array);
//     =value default, =`fn` default from a function of the script,
//     [a|b] choices (an enum), [=a|b] choices whose first is the default,
//     [?a|b] and [`fn`] choices that are not checked (no enum). <NAME>
//     notations and $NAME env bindings are skipped. A flag is a boolean;
//     an option a string, or an array of strings when repeatable. The
//     property of --path-name is path_name (so is its argc_path_name
//     variable). Description lines that follow @describe or @cmd are
//     appended to the description.
//   - A script with # @cmd tags declares one function per command, named
//     after the shell function that follows the tag (the original names an
//     agent's tools this way); the tags between @cmd and that function
//     are its parameters, @env and @meta before the first @cmd apply to
//     every command, and options before the first @cmd are ignored.
//   - Python: the top-level def run(...) with type hints and a Google
//     style docstring (the text before Args: is the description).
//   - JavaScript/TypeScript: the exported run function and the JSDoc block
//     just before it: @param or, as the original's tools do, an @typedef
//     with @property lines.
//
// # Wrappers
//
// BuildWrapper writes <dir>/bin/<name>, the program the kernel runs. For a
// bash tool it is a bash script (with the tool's own shebang when that
// names bash) that parses --name=value, --name value and --flag
// arguments, checks required options, choices, @env and
// @meta require-tools, sets the argc_* variables, defines a shell
// function argc that prints nothing (so the original's last line,
// eval "$(argc --argc-eval "$0" "$@")", does nothing), sources the tool
// and calls main or the @cmd function. Coyote ships no argc binary.
// Python and JavaScript wrappers hand the JSON arguments to a small
// inline program that imports the tool and calls run.
//
// # Calls
//
// Runner.Run turns the model's JSON arguments into the wrapper's
// arguments, runs it with a scrubbed environment and a timeout, and
// returns the text for the model: what the tool wrote to $LLM_OUTPUT,
// else its stdout, else "DONE"; a failure is a tool_call_error. A bash
// wrapper gets --name=value for each declared parameter the model gave
// (array elements repeated, --flag for true; null, false and unknown keys
// give nothing); a Python or JavaScript wrapper gets the JSON object of the
// declared parameters as its one argument. Arguments over 64 KiB go
// through a file instead, as Linux refuses a single argument over 128
// KiB: NUL-separated in $COYOTE_TOOL_ARGS_FILE for bash, the JSON in
// $LLM_TOOL_DATA_FILE (the original's name) for the others.
//
// # Environment
//
// A tool sees only these variables of the kernel's environment (ScrubEnv):
// PATH, HOME, USER, LOGNAME, SHELL, PWD, TMPDIR, TMP, TEMP, TZ, LANG,
// LANGUAGE, LC_*, TERM, COLORTERM, NO_COLOR, EDITOR, VISUAL, PAGER,
// AUTO_CONFIRM, COYOTE_TOOL_TIMEOUT, LLM_*, the proxy variables
// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, ALL_PROXY, and lower case), SSL_CERT_FILE,
// SSL_CERT_DIR, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME,
// XDG_RUNTIME_DIR, and on Windows the variables a process needs to start
// (SYSTEMROOT, WINDIR, COMSPEC, PATHEXT, APPDATA, LOCALAPPDATA,
// USERPROFILE). A LLM_* or LC_* variable whose name looks like a
// credential (it contains KEY, TOKEN, SECRET, PASSWORD, PASSWD or
// CREDENTIAL) is dropped all the same, and so is any variable whose value
// is one of the kernel's secret values. A variable the tool declares with
// @env is passed as well (the declaration is the user's consent), unless
// its value is a secret value. Runner adds LLM_ROOT_DIR, LLM_TOOL_NAME,
// LLM_OUTPUT and the caller's extra variables (agent variables,
// AUTO_CONFIRM=1), which are never scrubbed.
//
// # Processes
//
// A call runs in a new session with no controlling terminal, so a kill of
// its process group on timeout or cancellation ends the tool and its
// children, and a tool cannot stop on a terminal read (guard_operation
// finds no /dev/tty and refuses, unless AUTO_CONFIRM is set). With
// Runner.Terminal the call stays in the kernel's (foreground) process
// group so that guard_operation can ask on /dev/tty; the tool's process
// tree is then found and killed one process at a time. Standard input is
// /dev/null in both cases.
package script
