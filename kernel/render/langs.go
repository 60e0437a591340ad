package render

import (
	"strings"
	"sync"
)

// Each language's table is built the first time a code block in it is
// shown; nothing here runs at start-up.

// lookupLang returns the language a fence's info word names, or nil (plain
// code) when it is unknown.
func lookupLang(name string) *langDef {
	switch name {
	case "go", "golang":
		return cached(idGo, langGo)
	case "python", "py", "python3", "py3", "pyw", "pyi", "gyp", "sage":
		return cached(idPython, langPython)
	case "javascript", "js", "jsx", "mjs", "cjs", "node", "es6":
		return cached(idJS, langJS)
	case "typescript", "ts", "tsx", "mts", "cts":
		return cached(idTS, langTS)
	case "rust", "rs":
		return cached(idRust, langRust)
	case "c", "h":
		return cached(idC, langC)
	case "cpp", "c++", "cc", "cxx", "hpp", "hh", "hxx", "h++", "cuda", "cu":
		return cached(idCPP, langCPP)
	case "java":
		return cached(idJava, langJava)
	case "kotlin", "kt", "kts":
		return cached(idKotlin, langKotlin)
	case "csharp", "cs", "c#":
		return cached(idCSharp, langCSharp)
	case "ruby", "rb", "gemfile", "rake":
		return cached(idRuby, langRuby)
	case "php":
		return cached(idPHP, langPHP)
	case "sh", "bash", "zsh", "shell", "ksh", "console", "shell-session", "shellsession", "fish", "terminal", "env", "dotenv":
		return cached(idShell, langShell)
	case "powershell", "ps1", "ps", "pwsh", "psm1", "psd1":
		return cached(idPowerShell, langPowerShell)
	case "sql", "mysql", "postgresql", "postgres", "psql", "pgsql", "sqlite", "plsql", "tsql", "mssql":
		return cached(idSQL, langSQL)
	case "json", "jsonc", "json5", "jsonl", "ndjson", "geojson":
		return cached(idJSON, langJSON)
	case "yaml", "yml":
		return cached(idYAML, langYAML)
	case "toml", "ini", "cfg", "conf", "editorconfig", "properties":
		return cached(idTOML, langTOML)
	case "html", "htm", "xhtml", "xml", "svg", "xsd", "xsl", "xslt", "plist", "vue", "svelte", "rss", "atom":
		return cached(idMarkup, langMarkup)
	case "css", "scss", "sass", "less":
		return cached(idCSS, langCSS)
	case "markdown", "md", "mdx", "gfm":
		return cached(idMarkdown, langMarkdown)
	case "dockerfile", "docker", "containerfile":
		return cached(idDocker, langDocker)
	case "lua":
		return cached(idLua, langLua)
	case "swift":
		return cached(idSwift, langSwift)
	case "make", "makefile", "mk", "mak", "gnumake", "bsdmake":
		return cached(idMake, langMake)
	case "diff", "patch", "udiff":
		return cached(idDiff, langDiff)
	}
	return nil
}

// langID names a language's slot in the cache.
type langID uint8

const (
	idGo langID = iota
	idPython
	idJS
	idTS
	idRust
	idC
	idCPP
	idJava
	idKotlin
	idCSharp
	idRuby
	idPHP
	idShell
	idPowerShell
	idSQL
	idJSON
	idYAML
	idTOML
	idMarkup
	idCSS
	idMarkdown
	idDocker
	idLua
	idSwift
	idMake
	idDiff
	nLangs
)

// langCache holds each language's table once built; its zero value is
// ready, so it costs nothing at start-up.
var langCache [nLangs]struct {
	once sync.Once
	def  *langDef
}

// cached returns the table of language id, building it on first use.
func cached(id langID, build func() *langDef) *langDef {
	c := &langCache[id]
	c.once.Do(func() { c.def = build() })
	return c.def
}

// words builds a word table: each argument is a role followed by the
// words, separated by spaces, that have it.
func words(groups ...any) map[string]role {
	m := make(map[string]role)
	var r role
	for _, g := range groups {
		switch g := g.(type) {
		case role:
			r = g
		case string:
			for _, w := range strings.Fields(g) {
				m[w] = r
			}
		}
	}
	return m
}

// cStrings and cComment are the C family's strings and block comment.
func cStrings() []strDef {
	return []strDef{{open: `"`, close: `"`, esc: '\\'}, {open: `'`, close: `'`, esc: '\\'}}
}

func cComment() [][2]string { return [][2]string{{"/*", "*/"}} }

func langGo() *langDef {
	return &langDef{
		words: words(
			rKeyword, "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
			rType, "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable",
			rBuiltin, "append cap clear close complex copy delete imag len make max min new panic print println real recover true false nil iota",
		),
		decl:     map[string]role{"func": rFunction, "type": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs:     []strDef{{open: "`", close: "`", multi: true}, {open: `"`, close: `"`, esc: '\\'}, {open: `'`, close: `'`, esc: '\\'}},
		calls:    true,
	}
}

func langPython() *langDef {
	return &langDef{
		words: words(
			rKeyword, "and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case",
			rBuiltin, "True False None NotImplemented Ellipsis __name__ __file__ __doc__ abs all any ascii bin breakpoint callable chr classmethod compile delattr dir divmod enumerate eval exec filter format getattr globals hasattr hash help hex id input isinstance issubclass iter len locals map max min next oct open ord pow print property range repr reversed round setattr slice sorted staticmethod sum super vars zip __import__",
			rType, "bool bytearray bytes complex dict float frozenset int list memoryview object set str tuple type Exception ValueError TypeError KeyError IndexError RuntimeError",
			rVariable, "self cls",
		),
		decl:     map[string]role{"def": rFunction, "class": rType},
		lineCmt:  []string{"#"},
		strs:     []strDef{{open: `"""`, close: `"""`, esc: '\\', multi: true}, {open: `'''`, close: `'''`, esc: '\\', multi: true}, {open: `"`, close: `"`, esc: '\\'}, {open: `'`, close: `'`, esc: '\\'}},
		prefixes: []string{"r", "b", "f", "u", "rb", "br", "fr", "rf", "t"},
		annot:    true,
		calls:    true,
	}
}

const jsKeywords = "async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield get set as"

const (
	jsBuiltins = "true false null undefined NaN Infinity console window document globalThis process require module exports parseInt parseFloat setTimeout setInterval clearTimeout fetch"
	jsTypes    = "Object Array String Number Boolean Symbol BigInt Map Set WeakMap WeakSet Date RegExp Error Promise JSON Math Reflect Proxy"
)

func jsLike(extra ...any) *langDef {
	return &langDef{
		words:      words(append([]any{rKeyword, jsKeywords, rBuiltin, jsBuiltins, rType, jsTypes}, extra...)...),
		decl:       map[string]role{"function": rFunction, "class": rType, "interface": rType, "type": rType, "enum": rType},
		lineCmt:    []string{"//"},
		blockCmt:   cComment(),
		strs:       []strDef{{open: "`", close: "`", esc: '\\', multi: true}, {open: `"`, close: `"`, esc: '\\'}, {open: `'`, close: `'`, esc: '\\'}},
		identDolar: true,
		annot:      true,
		calls:      true,
		capsType:   true,
	}
}

func langJS() *langDef { return jsLike() }

func langTS() *langDef {
	return jsLike(
		rKeyword, "type interface enum namespace declare abstract implements private protected public readonly keyof infer is asserts satisfies override module",
		rType, "string number boolean any unknown never void object bigint symbol Record Partial Readonly Pick Omit",
	)
}

func langRust() *langDef {
	return &langDef{
		words: words(
			rKeyword, "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return static struct super trait type unsafe use where while yield",
			rType, "bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 String Vec Option Result Box Rc Arc HashMap HashSet Self",
			rBuiltin, "true false Some None Ok Err",
			rVariable, "self",
		),
		decl:      map[string]role{"fn": rFunction, "struct": rType, "enum": rType, "trait": rType, "type": rType, "impl": rType},
		lineCmt:   []string{"//"},
		blockCmt:  cComment(),
		strs:      []strDef{{open: `r#"`, close: `"#`, multi: true}, {open: `r"`, close: `"`, multi: true}, {open: `"`, close: `"`, esc: '\\', multi: true}},
		prefixes:  []string{"b", "c"},
		calls:     true,
		capsType:  true,
		macroBang: true,
		lifetimes: true,
		hashAttr:  true,
	}
}

const (
	cKeywords = "auto break case const continue default do else enum extern for goto if inline register restrict return sizeof static struct switch typedef union volatile while _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local"
	cTypes    = "char double float int long short signed unsigned void bool _Bool _Complex size_t ssize_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t ptrdiff_t wchar_t FILE"
	cBuiltins = "NULL true false EOF stdin stdout stderr"
)

func langC() *langDef {
	return &langDef{
		words:    words(rKeyword, cKeywords, rType, cTypes, rBuiltin, cBuiltins),
		decl:     map[string]role{"struct": rType, "enum": rType, "union": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs:     cStrings(),
		prefixes: []string{"l", "u", "u8"},
		preproc:  true,
		calls:    true,
	}
}

func langCPP() *langDef {
	return &langDef{
		words: words(
			rKeyword, cKeywords+" alignas alignof and asm catch class concept consteval constexpr constinit const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export final friend mutable namespace new noexcept not operator or override private protected public reinterpret_cast requires static_assert static_cast template this thread_local throw try typeid typename using virtual xor",
			rType, cTypes+" string string_view vector map unordered_map set unordered_set array pair tuple optional variant shared_ptr unique_ptr weak_ptr std char8_t char16_t char32_t",
			rBuiltin, cBuiltins+" nullptr cout cin cerr endl",
		),
		decl:     map[string]role{"class": rType, "struct": rType, "enum": rType, "union": rType, "namespace": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs:     append([]strDef{{open: `R"(`, close: `)"`, multi: true}}, cStrings()...),
		prefixes: []string{"l", "u", "u8"},
		preproc:  true,
		calls:    true,
	}
}

func langJava() *langDef {
	return &langDef{
		words: words(
			rKeyword, "abstract assert break case catch class continue default do else enum extends final finally for if implements import instanceof interface native new package private protected public return static strictfp super switch synchronized this throw throws transient try volatile while var record sealed permits yield",
			rType, "boolean byte char double float int long short void String Object Integer Long Double Boolean Character List Map Set ArrayList HashMap Optional",
			rBuiltin, "true false null",
		),
		decl:     map[string]role{"class": rType, "interface": rType, "enum": rType, "record": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs:     append([]strDef{{open: `"""`, close: `"""`, esc: '\\', multi: true}}, cStrings()...),
		annot:    true,
		calls:    true,
		capsType: true,
	}
}

func langKotlin() *langDef {
	return &langDef{
		words: words(
			rKeyword, "as break class continue do else for fun if in interface is object package return super this throw try typealias typeof val var when while by catch constructor finally get import init set where actual abstract annotation companion const crossinline data enum expect external final infix inline inner internal lateinit noinline open operator out override private protected public reified sealed suspend tailrec vararg",
			rType, "Int Long Short Byte Double Float Boolean Char String Unit Any Nothing List MutableList Map MutableMap Set Array Pair",
			rBuiltin, "true false null println print listOf mapOf setOf mutableListOf mutableMapOf arrayOf",
		),
		decl:     map[string]role{"fun": rFunction, "class": rType, "interface": rType, "object": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs:     append([]strDef{{open: `"""`, close: `"""`, multi: true}}, cStrings()...),
		sigils:   "",
		annot:    true,
		calls:    true,
		capsType: true,
	}
}

func langCSharp() *langDef {
	return &langDef{
		words: words(
			rKeyword, "abstract as base break case catch checked class const continue default delegate do else enum event explicit extern finally fixed for foreach goto if implicit in interface internal is lock namespace new operator out override params private protected public readonly ref return sealed sizeof stackalloc static struct switch this throw try typeof unchecked unsafe using virtual volatile while async await var record get set init yield where when nameof",
			rType, "bool byte char decimal double float int long object sbyte short string uint ulong ushort void dynamic String List Dictionary Task",
			rBuiltin, "true false null",
		),
		decl:     map[string]role{"class": rType, "struct": rType, "interface": rType, "enum": rType, "record": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs: []strDef{
			{open: `$@"`, close: `"`, dbl: true, multi: true}, {open: `@$"`, close: `"`, dbl: true, multi: true},
			{open: `@"`, close: `"`, dbl: true, multi: true}, {open: `$"`, close: `"`, esc: '\\'},
			{open: `"`, close: `"`, esc: '\\'}, {open: `'`, close: `'`, esc: '\\'},
		},
		preproc:  true,
		calls:    true,
		capsType: true,
	}
}

func langRuby() *langDef {
	return &langDef{
		words: words(
			rKeyword, "alias and begin break case class def do else elsif end ensure for if in module next not or redo rescue retry return super then undef unless until when while yield",
			rBuiltin, "true false nil self puts print p pp require require_relative attr_accessor attr_reader attr_writer include extend private protected public lambda proc raise loop",
		),
		decl:     map[string]role{"def": rFunction, "class": rType, "module": rType},
		lineCmt:  []string{"#"},
		blockCmt: [][2]string{{"=begin", "=end"}},
		strs:     []strDef{{open: `"`, close: `"`, esc: '\\', multi: true}, {open: `'`, close: `'`, esc: '\\', multi: true}, {open: "`", close: "`", esc: '\\'}},
		sigils:   "@$",
		symbols:  true,
		calls:    true,
		capsType: true,
	}
}

func langPHP() *langDef {
	return &langDef{
		words: words(
			rKeyword, "abstract and array as break callable case catch class clone const continue declare default do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum extends final finally fn for foreach function global goto if implements include include_once instanceof insteadof interface isset list match namespace new or print private protected public readonly require require_once return static switch throw trait try unset use var while xor yield",
			rType, "int float string bool object mixed void iterable self parent",
			rBuiltin, "true false null TRUE FALSE NULL",
			rVariable, "$this",
		),
		decl:     map[string]role{"function": rFunction, "class": rType, "interface": rType, "trait": rType, "enum": rType},
		lineCmt:  []string{"//", "#"},
		blockCmt: cComment(),
		strs:     []strDef{{open: `"`, close: `"`, esc: '\\', multi: true}, {open: `'`, close: `'`, esc: '\\', multi: true}},
		sigils:   "$",
		metas:    []string{"<?php", "<?=", "?>"},
		calls:    true,
	}
}

const shellKeywords = "if then else elif fi case esac for select while until do done in function time coproc return break continue exit local export readonly declare typeset unset shift trap eval exec source alias set"

func langShell() *langDef {
	return &langDef{
		words: words(
			rKeyword, shellKeywords,
			rBuiltin, "echo printf read cd pwd pushd popd test true false kill wait jobs bg fg umask getopts command type hash let mapfile readarray sudo",
		),
		lineCmt:    []string{"#"},
		strs:       []strDef{{open: `$'`, close: `'`, esc: '\\'}, {open: `"`, close: `"`, esc: '\\', multi: true}, {open: `'`, close: `'`, multi: true}, {open: "`", close: "`", esc: '\\', multi: true}},
		sigils:     "$",
		ops:        "|&;<>=!",
		identDash:  true,
		dashParams: true,
		hashWord:   true,
	}
}

func langPowerShell() *langDef {
	return &langDef{
		words: words(
			rKeyword, "begin break catch class continue data define do dynamicparam else elseif end enum exit filter finally for foreach from function hidden if in param process return static switch throw trap try until using var while workflow",
			rOperator, "-and -or -not -xor -band -bor -eq -ne -gt -lt -ge -le -like -notlike -match -notmatch -contains -notcontains -in -notin -replace -split -join -is -isnot -as -f",
			rBuiltin, "$true $false $null $_ $psitem $args $input $this",
		),
		fold:       true,
		decl:       map[string]role{"function": rFunction, "class": rType, "filter": rFunction},
		lineCmt:    []string{"#"},
		blockCmt:   [][2]string{{"<#", "#>"}},
		strs:       []strDef{{open: `@"`, close: `"@`, multi: true}, {open: `@'`, close: `'@`, multi: true}, {open: `"`, close: `"`, esc: '`', multi: true}, {open: `'`, close: `'`, dbl: true, multi: true}},
		sigils:     "$",
		ops:        "=+*/%<>!&|",
		identDash:  true,
		dashParams: true,
		calls:      true,
		cmdlets:    true,
	}
}

func langSQL() *langDef {
	return &langDef{
		words: words(
			rKeyword, "select from where and or not insert into values update set delete create table drop alter add column primary key foreign references index view as on join left right inner outer full cross natural group by order having limit offset union all distinct case when then else end is like ilike in between exists returning with recursive default constraint unique check if begin commit rollback transaction grant revoke database schema trigger procedure function returns language declare replace cascade asc desc top fetch next rows only over partition window cast using",
			rType, "int integer smallint bigint tinyint serial bigserial decimal numeric real float double precision char varchar text nchar nvarchar boolean bool date time timestamp timestamptz interval uuid json jsonb blob bytea",
			rBuiltin, "null true false count sum avg min max coalesce nullif now current_date current_timestamp lower upper length substring trim round abs concat string_agg array_agg row_number rank dense_rank lag lead",
		),
		fold:     true,
		lineCmt:  []string{"--"},
		blockCmt: cComment(),
		strs:     []strDef{{open: `'`, close: `'`, dbl: true, multi: true}, {open: `"`, close: `"`, dbl: true}, {open: "`", close: "`"}},
		calls:    true,
	}
}

func langJSON() *langDef     { return &langDef{kind: lexJSON} }
func langYAML() *langDef     { return &langDef{kind: lexYAML} }
func langTOML() *langDef     { return &langDef{kind: lexTOML} }
func langMarkup() *langDef   { return &langDef{kind: lexMarkup} }
func langCSS() *langDef      { return &langDef{kind: lexCSS} }
func langMarkdown() *langDef { return &langDef{kind: lexMarkdown} }
func langDiff() *langDef     { return &langDef{kind: lexDiff} }

// The Dockerfile and Makefile lexers hand shell lines to the shell's
// table.
func langDocker() *langDef {
	l := *cached(idShell, langShell)
	l.kind = lexDocker
	return &l
}

func langMake() *langDef {
	l := *cached(idShell, langShell)
	l.kind = lexMake
	return &l
}

func langLua() *langDef {
	return &langDef{
		words: words(
			rKeyword, "and break do else elseif end for function goto if in local not or repeat return then until while",
			rBuiltin, "true false nil print pairs ipairs require type tostring tonumber table string math os io error assert pcall xpcall select setmetatable getmetatable next rawget rawset unpack",
			rVariable, "self",
		),
		decl:     map[string]role{"function": rFunction},
		lineCmt:  []string{"--"},
		blockCmt: [][2]string{{"--[[", "]]"}},
		strs:     []strDef{{open: "[[", close: "]]", multi: true}, {open: `"`, close: `"`, esc: '\\'}, {open: `'`, close: `'`, esc: '\\'}},
		calls:    true,
	}
}

func langSwift() *langDef {
	return &langDef{
		words: words(
			rKeyword, "associatedtype class deinit enum extension fileprivate func import init inout internal let open operator private protocol public rethrows static struct subscript typealias var break case continue default defer do else fallthrough for guard if in repeat return switch where while as catch is super throw throws try async await some any mutating nonmutating override convenience required final lazy weak unowned",
			rType, "Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Double Float Bool String Character Array Dictionary Set Optional Void Any AnyObject Error Self",
			rBuiltin, "true false nil print",
			rVariable, "self",
		),
		decl:     map[string]role{"func": rFunction, "class": rType, "struct": rType, "enum": rType, "protocol": rType, "extension": rType},
		lineCmt:  []string{"//"},
		blockCmt: cComment(),
		strs:     []strDef{{open: `"""`, close: `"""`, esc: '\\', multi: true}, {open: `"`, close: `"`, esc: '\\'}},
		annot:    true,
		calls:    true,
		capsType: true,
	}
}
