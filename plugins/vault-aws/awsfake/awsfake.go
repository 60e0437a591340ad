// Package awsfake is an in-memory AWS Secrets Manager for tests: the
// service's JSON 1.1 protocol (POST /, X-Amz-Target:
// secretsmanager.<Operation>) for the operations Coyote uses, which
// refuses any request whose SigV4 signature does not verify against the
// test credentials, as AWS does.
package awsfake

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The credentials the fake accepts.
const (
	AccessKeyID     = "AKIDCOYOTETEST"
	SecretAccessKey = "coyote-test-secret-access-key"
	Region          = "us-east-1"
)

// Server is the fake service.
type Server struct {
	*httptest.Server
	// Latency is added to every answer.
	Latency time.Duration

	mu       sync.Mutex
	secrets  map[string]string
	requests []string // the operation of each request, in order
	denied   map[string]bool
}

// New starts a fake with the given secrets.
func New(secrets map[string]string) *Server {
	s := &Server{secrets: map[string]string{}, denied: map[string]bool{}}
	for k, v := range secrets {
		s.secrets[k] = v
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Deny makes every request for name fail with AccessDeniedException.
func (s *Server) Deny(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[name] = true
}

// Requests returns the operations received so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

// verify checks the request's SigV4 signature by signing a copy with the
// test credentials and the request's own date and signed headers.
func verify(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return fmt.Errorf("no SigV4 Authorization header")
	}
	parts := map[string]string{}
	for _, p := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		parts[k] = v
	}
	cred := strings.Split(parts["Credential"], "/")
	if len(cred) != 5 || cred[0] != AccessKeyID || cred[3] != "secretsmanager" || cred[4] != "aws4_request" {
		return fmt.Errorf("bad credential scope %q", parts["Credential"])
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("bad X-Amz-Date: %v", err)
	}
	signed := strings.Split(parts["SignedHeaders"], ";")
	if !contains(signed, "host") || !contains(signed, "x-amz-date") || !contains(signed, "x-amz-target") {
		return fmt.Errorf("signed headers %q miss host, x-amz-date or x-amz-target", parts["SignedHeaders"])
	}
	cp, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	for _, h := range signed {
		if h != "host" {
			cp.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: AccessKeyID, SecretAccessKey: SecretAccessKey, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, cp, hex.EncodeToString(sum[:]), "secretsmanager", cred[2], when); err != nil {
		return err
	}
	want := cp.Header.Get("Authorization")
	if !strings.HasSuffix(want, "Signature="+parts["Signature"]) {
		return fmt.Errorf("signature does not match")
	}
	if time.Since(when).Abs() > 15*time.Minute {
		return fmt.Errorf("request time too skewed")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json-1.1") {
		apiError(w, 400, "SerializationException", "expected POST / with application/x-amz-json-1.1")
		return
	}
	if err := verify(r, body); err != nil {
		apiError(w, 403, "InvalidSignatureException", err.Error())
		return
	}
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "secretsmanager.")
	if !ok {
		apiError(w, 400, "UnknownOperationException", "bad X-Amz-Target")
		return
	}
	var in struct {
		Name, SecretId, SecretString string
		SecretIdList                 []string
		ForceDeleteWithoutRecovery   bool
	}
	if err := json.Unmarshal(body, &in); err != nil {
		apiError(w, 400, "SerializationException", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, op)
	for _, n := range append([]string{in.Name, in.SecretId}, in.SecretIdList...) {
		if s.denied[n] {
			apiError(w, 400, "AccessDeniedException", "User: arn:aws:iam::123456789012:user/test is not authorized to perform: secretsmanager:"+op+" on resource: "+n)
			return
		}
	}
	out := map[string]any{}
	switch op {
	case "BatchGetSecretValue":
		if len(in.SecretIdList) == 0 || len(in.SecretIdList) > 20 {
			apiError(w, 400, "InvalidParameterException", "SecretIdList must have 1 to 20 entries")
			return
		}
		var values, errs []map[string]any
		for _, n := range in.SecretIdList {
			if v, ok := s.secrets[n]; ok {
				values = append(values, map[string]any{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:" + n, "Name": n, "SecretString": v, "VersionId": "v1"})
			} else {
				errs = append(errs, map[string]any{"SecretId": n, "ErrorCode": "ResourceNotFoundException", "Message": "Secrets Manager can't find the specified secret."})
			}
		}
		out["SecretValues"], out["Errors"] = values, errs
	case "CreateSecret":
		if _, ok := s.secrets[in.Name]; ok {
			apiError(w, 400, "ResourceExistsException", "The operation failed because the secret "+in.Name+" already exists.")
			return
		}
		s.secrets[in.Name] = in.SecretString
		out["Name"] = in.Name
	case "PutSecretValue":
		if _, ok := s.secrets[in.SecretId]; !ok {
			apiError(w, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
			return
		}
		s.secrets[in.SecretId] = in.SecretString
		out["Name"] = in.SecretId
	case "DeleteSecret":
		if _, ok := s.secrets[in.SecretId]; !ok {
			apiError(w, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
			return
		}
		delete(s.secrets, in.SecretId)
		out["Name"] = in.SecretId
	case "ListSecrets":
		var list []map[string]any
		names := make([]string, 0, len(s.secrets))
		for n := range s.secrets {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			list = append(list, map[string]any{"Name": n})
		}
		out["SecretList"] = list
	default:
		apiError(w, 400, "UnknownOperationException", op)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(out)
}
