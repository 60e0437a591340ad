package vault

import (
	"crypto/cipher"
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

	// Additional data: binds the check value to its role and each secret
	// to its name.
	checkAD        = "coyote-vault/1 check"
	secretADPrefix = "coyote-vault/1 secret "
	checkText      = "coyote vault password check"
)

// kdfParams are Argon2id's costs.
type kdfParams struct {
	memoryKiB   uint32
	iterations  uint32
	parallelism uint8
}

// defaultParams are the costs of a new vault: OWASP's 46 MiB, one pass,
// with two lanes so that two cores share the work: about 35 ms on a
// 2-core machine (BenchmarkDeriveKeyWithDefaultCosts). The original used
// 19 MiB and two passes, about as long.
var defaultParams = kdfParams{memoryKiB: 47104, iterations: 1, parallelism: 2}

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

// seal returns base64(nonce || ciphertext || tag).
func seal(aead cipher.AEAD, random io.Reader, plaintext, ad []byte) (string, error) {
	buf := make([]byte, nonceLen, nonceLen+len(plaintext)+tagLen)
	if _, err := io.ReadFull(random, buf); err != nil {
		return "", fmt.Errorf("read random nonce: %w", err)
	}
	buf = aead.Seal(buf, buf[:nonceLen], plaintext, ad)
	return base64.StdEncoding.EncodeToString(buf), nil
}

// decodeSealed checks the shape of a sealed value.
func decodeSealed(s string) ([]byte, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) < nonceLen+tagLen {
		return nil, false
	}
	return raw, true
}

// open opens a value that decodeSealed accepted.
func open(aead cipher.AEAD, raw, ad []byte) ([]byte, error) {
	return aead.Open(nil, raw[:nonceLen], raw[nonceLen:], ad)
}

func secretAD(name string) []byte { return []byte(secretADPrefix + name) }

func randomBytes(random io.Reader, n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(random, b); err != nil {
		return nil, fmt.Errorf("read random bytes: %w", err)
	}
	return b, nil
}

// The original's format: one self-contained envelope per secret,
//
//	$VAULT;v1;argon2id;m=<KiB>,t=<passes>,p=<lanes>;salt=<b64>;nonce=<b64>;ct=<b64>
//
// with its own salt, sealed with XChaCha20-Poly1305 under the additional
// data "$VAULT;v1;argon2id;m=…,t=…,p=…" (older files: "$VAULT;v1"; the
// oldest were sealed with an all-zero key).
const legacyPrefix = "$VAULT;"

type legacyEnvelope struct {
	params kdfParams
	salt   []byte
	nonce  []byte
	ct     []byte
}

// parseLegacy parses an envelope; the error says what is wrong with it,
// without its content.
func parseLegacy(s string) (legacyEnvelope, error) {
	var e legacyEnvelope
	parts := strings.Split(strings.TrimSpace(s), ";")
	if len(parts) < 7 {
		return e, errors.New("it has too few fields")
	}
	if parts[0] != "$VAULT" || parts[1] != "v1" || parts[2] != kdfName {
		return e, fmt.Errorf("unknown kind %q", strings.Join(parts[:3], ";"))
	}
	// The original's defaults, for a field that is missing.
	m, t, p := uint64(19456), uint64(2), uint64(1)
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

func (e legacyEnvelope) keyID() string {
	return fmt.Sprintf("%d,%d,%d;%x", e.params.memoryKiB, e.params.iterations, e.params.parallelism, e.salt)
}

// open tries the original's additional data strings with key, then the
// all-zero key of its oldest files.
func (e legacyEnvelope) open(key []byte) ([]byte, bool) {
	ads := []string{
		fmt.Sprintf("$VAULT;v1;%s;m=%d,t=%d,p=%d", kdfName, e.params.memoryKiB, e.params.iterations, e.params.parallelism),
		"$VAULT;v1",
	}
	for _, ad := range ads {
		if pt, err := newAEAD(key).Open(nil, e.nonce, e.ct, []byte(ad)); err == nil {
			return pt, true
		}
	}
	if pt, err := newAEAD(make([]byte, keyLen)).Open(nil, e.nonce, e.ct, []byte(ads[1])); err == nil {
		return pt, true
	}
	return nil, false
}
