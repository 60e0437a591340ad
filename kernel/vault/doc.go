// Package vault owns the local secrets vault and the {{NAME}} placeholders
// that refer to it: the encrypted vault.yml in the config directory, the
// password file that unlocks it, and the pure functions that find and
// replace placeholders in config.yaml, mcp.json, RAG driver settings and
// document loader commands.
//
// It must not touch anything else: it reads no config.yaml (the caller
// passes the config directory and the password file), it never prompts (the
// CLI asks for a password or a secret in a terminal and calls
// CreatePasswordFile or Set), it starts no plugin, and it never logs or
// prints a secret, nor puts one in an error message. Remote secret
// providers (AWS, GCP, Azure, gopass, 1Password) are not part of it.
//
// # Cost
//
// Open does no I/O. Listing names and checking whether a name exists read
// vault.yml only: names are stored in clear, so they need no password.
// The first operation that needs a secret value reads the password file
// and derives a key with Argon2id (about 35 ms and 19 MiB on a 2-core
// machine); keys are kept in the Vault, per salt, for the rest of the
// process, so share one Vault. Every secret coyote writes shares one salt,
// so one derivation serves them all (each entry of the original has its
// own salt, and costs one derivation when first read). Later reads cost
// about 0.15 ms (vault.yml is read again each time). Text without
// placeholders never reaches the vault.
//
// Changes (Set, Add, Delete) are made under the vault's lock
// (fsx.LockFile), on the file as it is when the lock is taken: two
// coyote processes adding secrets at the same time both keep theirs.
//
// # The password file
//
// The password is the content of the password file with surrounding
// white space (such as the final newline) removed. On Unix the file must
// not be accessible to the group or to others (mode 0600 or 0400): a file
// that is gets ErrInsecurePasswordFile, naming the file and the chmod that
// fixes it. CreatePasswordFile writes a new one with mode 0600 and refuses
// a password shorter than MinPasswordLength characters; an existing
// password file with a shorter password is still accepted, so a vault
// made by the original keeps opening. GeneratePassword makes one for a
// first use without a terminal.
//
// # vault.yml
//
// The file is the original's (the gman crate's local vault), so that the
// original keeps reading every secret coyote adds: a flat YAML map from
// name to envelope, replaced atomically on every change, mode 0600:
//
//	# Coyote secrets vault, in the original coyote's format: …
//	OPENAI_API_KEY: $VAULT;v1;argon2id;m=19456,t=2,p=1;salt=<b64>;nonce=<b64>;ct=<b64>
//	# end of the vault
//
// Each envelope is self-contained: Argon2id (version 0x13) costs, a
// 16-byte salt, a 24-byte nonce and the XChaCha20-Poly1305 ciphertext and
// tag (standard base64 with padding), sealed under the 32-byte key derived
// from the password with that salt and costs, with the envelope's first
// four fields as additional data. Tampering with a value, its salt, nonce
// or costs makes it fail to open (ErrTampered when the password opens
// another entry, ErrBadPassword when it opens none). The format has no
// room for the name, so an envelope moved under another name still opens;
// the original has the same limit. Coyote writes the original's costs,
// and the salt of an entry whose key it already knows, and refuses to add
// a secret with a password that opens none of the vault's entries. The
// comments, which the original ignores, mark a file cut short: one that
// starts with the first but lacks the last is ErrTampered. Removing an
// entry by hand is allowed.
//
// Entries of the original's older versions are read too: those sealed with
// the additional data "$VAULT;v1". The oldest versions sealed with an
// all-zero key: since anyone who can write vault.yml could have written
// such an entry, it is refused (ErrTampered, asking to set it again) and
// never returned nor sealed again.
//
// Earlier versions of coyote wrote another format (coyote_vault: 1, one
// salt and a check value in a header, each secret bound to its name),
// which the original cannot read. It is still read, and converted to the
// original's format at the next change (Set, Add or Delete, which then
// needs the password): every secret is opened and sealed again, and a
// secret that fails to open stops the conversion, naming it, unless it is
// the one being replaced or deleted.
//
// # Placeholders
//
// A placeholder is "{{", a name, "}}". A name is a letter or underscore
// followed by letters, digits and underscores (ASCII), as ValidName says.
// Blanks (spaces and tabs) between the braces and the name are allowed, so
// "{{ OPENAI_API_KEY }}" is a placeholder too, as it was in the original;
// anything else between the braces ("{{}}", "{{a-b}}", "{{ .Field }}",
// a line break) makes it plain text, left as it is. The text is scanned
// left to right and a match never overlaps the previous one, so
// "{{{A}}}" is "{" + A + "}" and "{{A}}{{B}}" is two placeholders. A line
// whose first non-blank character is "#" is a comment and is left alone,
// placeholders included, as in the original (its example config mentions
// {{SECRET_NAME}} in a comment). A value is inserted as it is, without
// quoting.
package vault
