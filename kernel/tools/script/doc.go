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
// A tool sees an allow-list of the kernel's environment (ScrubEnv), not
// the environment minus what looks like a credential: names such as
// LLM_AUTH or MY_PAT look like nothing, and a tool's output (env, an
// error message) goes to the model. The list:
//
//   - PATH, HOME, USER, LOGNAME, SHELL, PWD, TMPDIR, TMP, TEMP,
//     XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR:
//     finding programs and the user's files;
//   - LANG, LANGUAGE, the locale categories (LC_ALL, LC_CTYPE, LC_COLLATE,
//     LC_MESSAGES, LC_MONETARY, LC_NUMERIC, LC_TIME, LC_ADDRESS,
//     LC_IDENTIFICATION, LC_MEASUREMENT, LC_NAME, LC_PAPER, LC_TELEPHONE),
//     TZ, TERM, COLORTERM, NO_COLOR: how text, times and colours look;
//   - EDITOR, VISUAL, PAGER;
//   - the proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, FTP_PROXY
//     and their lower-case forms) with the user name and password of the
//     URL removed (WithoutUserinfo), NO_PROXY, and the certificate bundles
//     a company proxy needs (SSL_CERT_FILE, SSL_CERT_DIR,
//     REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, NODE_EXTRA_CA_CERTS,
//     GIT_SSL_CAINFO, GIT_SSL_CAPATH);
//   - on Windows, the variables a process needs to start (SYSTEMROOT,
//     WINDIR, COMSPEC, PATHEXT, APPDATA, LOCALAPPDATA, USERPROFILE).
//
// All but PWD, EDITOR, VISUAL, PAGER and the proxy variables are
// envlist.Base, the list plugins start from too; a variable both should
// see is added there.
//
// No LLM_* variable is inherited: Runner sets the ones the original gives
// tools (LLM_ROOT_DIR, LLM_TOOL_NAME, LLM_OUTPUT, LLM_TOOL_DATA_FILE when
// the arguments are large) and the caller adds its own (agent variables)
// through Run's extraEnv. AUTO_CONFIRM is never inherited either:
// Runner.AutoConfirm (--dangerously-skip-permissions) alone sets it.
//
// Two ways let more through. A variable a tool declares with @env is
// passed (the tool says it needs it; a proxy's credentials are still
// removed). The names in the user's tool_env_passthrough setting (exact
// names, or prefixes ending in *) are passed as they are, proxy
// credentials included (Runner.PassEnv). Neither passes AUTO_CONFIRM, nor
// a variable whose value is one of the kernel's secret values (a
// client's API key).
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
