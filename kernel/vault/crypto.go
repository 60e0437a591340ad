package vault

import (
	"crypto/cipher"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

const (
	keyLen   = chacha20poly1305.KeySize    // 32
	nonceLen = chacha20poly1305.NonceSizeX // 24
	tagLen   = chacha20poly1305.Overhead   // 16
	saltLen  = 16

	kdfName = "argon2id"
)

// kdfParams are Argon2id's costs.
type kdfParams struct {
	memoryKiB   uint32
	iterations  uint32
	parallelism uint8
}

// originalParams are the costs the original writes in every envelope
// (19 MiB, two passes, one lane: about 35 ms here, as fast as the 46 MiB,
// one pass, two lanes of coyote_vault 1). Writing exactly the original's
// costs keeps the file readable by any version of it.
var originalParams = kdfParams{memoryKiB: 19456, iterations: 2, parallelism: 1}

// Bounds on costs read from a file: a damaged or hostile file must not
// make coyote allocate gigabytes or spin for minutes.
const (
	maxMemoryKiB  = 1 << 20 // 1 GiB
	maxIterations = 64
	minSaltLen    = 8
	maxSaltLen    = 64
)

func (p kdfParams) valid() bool {
	return p.iterations >= 1 && p.iterations <= maxIterations &&
		p.parallelism >= 1 &&
		p.memoryKiB >= 8*uint32(p.parallelism) && p.memoryKiB <= maxMemoryKiB
}

func (p kdfParams) String() string {
	return fmt.Sprintf("m=%d,t=%d,p=%d", p.memoryKiB, p.iterations, p.parallelism)
}

// keyID names the key derived from the password with salt and costs p.
func keyID(p kdfParams, salt []byte) string {
	return fmt.Sprintf("%s;%x", p, salt)
}

func deriveKey(password, salt []byte, p kdfParams) []byte {
	return argon2.IDKey(password, salt, p.iterations, p.memoryKiB, p.parallelism, keyLen)
}

func newAEAD(key []byte) cipher.AEAD {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		// Only a key of the wrong size fails, and keys are always keyLen.
		panic("vault: " + err.Error())
	}
	return aead
}

func randomBytes(random io.Reader, n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(random, b); err != nil {
		return nil, fmt.Errorf("read random bytes: %w", err)
	}
	return b, nil
}

// The original's format (the gman crate's local provider): one
// self-contained envelope per secret,
//
//	$VAULT;v1;argon2id;m=<KiB>,t=<passes>,p=<lanes>;salt=<b64>;nonce=<b64>;ct=<b64>
//
// base64 being the standard alphabet with padding. The key is Argon2id
// (version 0x13) of the password with the envelope's salt and costs, 32
// bytes; ct is the XChaCha20-Poly1305 ciphertext and tag, under the
// 24-byte nonce and the additional data "$VAULT;v1;argon2id;m=…,t=…,p=…"
// (the envelope's first four fields). Older versions of the original used
// the additional data "$VAULT;v1", and the oldest sealed with an all-zero
// key, which anyone can do: such an entry is refused (errSealedWithoutKey).
const envelopePrefix = "$VAULT;"

// oldAD is the additional data of the original's older envelopes.
const oldAD = "$VAULT;v1"

type envelope struct {
	params kdfParams
	salt   []byte
	nonce  []byte
	ct     []byte
}

// parseEnvelope parses an envelope; the error says what is wrong with it,
// without its content.
func parseEnvelope(s string) (envelope, error) {
	var e envelope
	parts := strings.Split(strings.TrimSpace(s), ";")
	if len(parts) < 7 {
		return e, errors.New("it has too few fields")
	}
	if parts[0] != "$VAULT" || parts[1] != "v1" || parts[2] != kdfName {
		return e, fmt.Errorf("unknown kind %q", strings.Join(parts[:3], ";"))
	}
	// The original's defaults, for a field that is missing.
	m, t, p := uint64(originalParams.memoryKiB), uint64(originalParams.iterations), uint64(originalParams.parallelism)
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			continue
		}
		switch k {
		case "m":
			m = n
		case "t":
			t = n
		case "p":
			p = n
		}
	}
	if p == 0 || p > 255 {
		return e, fmt.Errorf("its parallelism %d is out of range", p)
	}
	e.params = kdfParams{memoryKiB: uint32(m), iterations: uint32(t), parallelism: uint8(p)}
	if !e.params.valid() {
		return e, fmt.Errorf("its key derivation costs m=%d,t=%d,p=%d are out of range", m, t, p)
	}
	fields := []struct {
		prefix string
		dst    *[]byte
	}{{"salt=", &e.salt}, {"nonce=", &e.nonce}, {"ct=", &e.ct}}
	for i, f := range fields {
		v, ok := strings.CutPrefix(parts[4+i], f.prefix)
		if !ok {
			return e, fmt.Errorf("its field %d is not %s", 5+i, strings.TrimSuffix(f.prefix, "="))
		}
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			return e, fmt.Errorf("its %s is not base64", strings.TrimSuffix(f.prefix, "="))
		}
		*f.dst = b
	}
	if len(e.nonce) != nonceLen {
		return e, fmt.Errorf("its nonce has %d bytes instead of %d", len(e.nonce), nonceLen)
	}
	if len(e.salt) < minSaltLen || len(e.salt) > maxSaltLen {
		return e, fmt.Errorf("its salt has %d bytes", len(e.salt))
	}
	if len(e.ct) < tagLen {
		return e, errors.New("its ciphertext is too short")
	}
	return e, nil
}

func (e envelope) keyID() string { return keyID(e.params, e.salt) }

// envelopeAD is the additional data the original seals an envelope with.
func envelopeAD(p kdfParams) []byte {
	return []byte("$VAULT;v1;" + kdfName + ";" + p.String())
}

// open opens the envelope with key, under the original's current
// additional data or its older one.
func (e envelope) open(key []byte) ([]byte, bool) {
	aead := newAEAD(key)
	for _, ad := range [][]byte{envelopeAD(e.params), []byte(oldAD)} {
		if pt, err := aead.Open(nil, e.nonce, e.ct, ad); err == nil {
			return pt, true
		}
	}
	return nil, false
}

// sealedWithoutKey reports whether the envelope opens with the all-zero
// key of the original's oldest versions: its value proves nothing, since
// anyone who can write the file could have sealed it.
func (e envelope) sealedWithoutKey() bool {
	_, ok := e.open(make([]byte, keyLen))
	return ok
}

// sealEnvelope seals plaintext in an envelope of the original's format
// with key, derived from the password with salt and costs p, and a fresh
// random nonce.
func sealEnvelope(key []byte, p kdfParams, salt []byte, random io.Reader, plaintext []byte) (string, error) {
	nonce, err := randomBytes(random, nonceLen)
	if err != nil {
		return "", err
	}
	ct := newAEAD(key).Seal(nil, nonce, plaintext, envelopeAD(p))
	b64 := base64.StdEncoding.EncodeToString
	return "$VAULT;v1;" + kdfName + ";" + p.String() +
		";salt=" + b64(salt) + ";nonce=" + b64(nonce) + ";ct=" + b64(ct), nil
}

// coyote_vault 1, the format earlier versions of coyote wrote (a header
// with one salt and costs, a check value, and base64 of nonce ||
// ciphertext || tag per secret, each sealed with its name): read, and
// converted to the original's format at the next change.
const (
	checkAD        = "coyote-vault/1 check"
	secretADPrefix = "coyote-vault/1 secret "
	checkText      = "coyote vault password check"
)

// decodeSealed checks the shape of a coyote_vault 1 sealed value.
func decodeSealed(s string) ([]byte, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) < nonceLen+tagLen {
		return nil, false
	}
	return raw, true
}

// openSealed opens a value that decodeSealed accepted.
func openSealed(aead cipher.AEAD, raw, ad []byte) ([]byte, error) {
	return aead.Open(nil, raw[:nonceLen], raw[nonceLen:], ad)
}

func secretAD(name string) []byte { return []byte(secretADPrefix + name) }

// checkOpens reports whether key opens a coyote_vault 1 check value.
func checkOpens(key []byte, check string) bool {
	raw, ok := decodeSealed(check)
	if !ok {
		return false
	}
	pt, err := openSealed(newAEAD(key), raw, []byte(checkAD))
	return err == nil && subtle.ConstantTimeCompare(pt, []byte(checkText)) == 1
}
