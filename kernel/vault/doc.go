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
// and derives the key with Argon2id (about 35 ms and 46 MiB on a 2-core
// machine); the key is kept in the Vault for the rest of the process, so
// share one Vault. Later reads cost about 0.15 ms (vault.yml is read
// again each time). Text without placeholders never reaches the vault.
//
// Changes are not locked across processes: two coyote processes changing
// the vault at the same instant may lose one of the two changes (never the
// file).
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
// made by the original keeps opening.
//
// # vault.yml
//
// The file is YAML, replaced atomically on every change
// (fsutil.WriteFileAtomic), mode 0600:
//
//	# Coyote secrets vault. …
//	coyote_vault: 1
//	kdf:
//	  name: argon2id
//	  memory_kib: 47104
//	  iterations: 1
//	  parallelism: 2
//	  salt: <base64, 16 random bytes>
//	check: <base64>
//	secrets:
//	  OPENAI_API_KEY: <base64>
//	...
//
// coyote_vault is the format version. The kdf block holds the Argon2id
// (version 0x13) parameters and the random salt from which the 32-byte key
// is derived from the password; it is chosen when the vault is created and
// kept for its life. Each secret is base64 of a random 24-byte nonce
// followed by its XChaCha20-Poly1305 ciphertext and tag, sealed with the
// additional data "coyote-vault/1 secret " + name, so a ciphertext moved
// under another name fails to open. check is a value of the same shape
// sealing a fixed text with the additional data "coyote-vault/1 check": it
// tells a wrong password (ErrBadPassword: check fails) from a damaged or
// edited secret (ErrTampered: check opens, the secret does not), and stops
// a wrong password from adding a secret that the right one cannot read.
// The final "..." is the YAML end-of-document marker: a file cut short
// loses it and is reported as ErrTampered instead of silently losing the
// secrets after the cut. Removing an entry by hand is allowed; changing a
// value, the check or the salt is detected.
//
// A vault.yml written by the original (a flat map from name to
// "$VAULT;v1;argon2id;m=…,t=…,p=…;salt=…;nonce=…;ct=…", one salt per
// secret) is read as it is. The first Set converts it to the format above
// after decrypting every entry, and keeps the old file beside it as
// vault.yml.legacy.bak, so nothing is lost even if one goes back to the
// original; Delete just removes the entry and keeps the old format.
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
