package bedrock

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/coyote-cli/coyote/sdk"
	"github.com/coyote-cli/coyote/sdk/httpkit"
)

// kindForCode maps a Bedrock (or AWS) error code to an sdk sentinel; nil
// when the code is unknown.
func kindForCode(code string) error {
	switch code {
	case "ValidationException", "SerializationException":
		return sdk.ErrInvalidArgument
	case "UnrecognizedClientException", "InvalidSignatureException", "IncompleteSignature",
		"ExpiredTokenException", "ExpiredToken", "InvalidClientTokenId", "MissingAuthenticationToken":
		return sdk.ErrUnauthenticated
	case "AccessDeniedException":
		return sdk.ErrPermissionDenied
	case "ResourceNotFoundException":
		return sdk.ErrNotFound
	case "ThrottlingException", "ServiceQuotaExceededException", "TooManyRequestsException":
		return sdk.ErrRateLimited
	case "InternalServerException", "ServiceUnavailableException", "ModelStreamErrorException",
		"ModelTimeoutException", "ModelNotReadyException", "ModelErrorException":
		return sdk.ErrUnavailable
	}
	return nil
}

// hint is what to do about an error of code, "" when there is nothing to
// add.
func hint(code string) string {
	switch code {
	case "UnrecognizedClientException", "InvalidClientTokenId", "InvalidSignatureException":
		return " (check access_key_id and secret_access_key, or the AWS profile in use)"
	case "ExpiredTokenException", "ExpiredToken":
		return " (the session token has expired: refresh the credentials, e.g. aws sso login)"
	case "AccessDeniedException":
		return " (the credentials need bedrock:InvokeModel on this model, and the model must be enabled in the region's Bedrock console)"
	}
	return ""
}

// apiError turns an error of the AWS client into one line the kernel
// understands: the status, Bedrock's error code and message, a hint, and
// the Retry-After delay when the server sent one. model is the model of a
// chat request ("" once a stream has started).
func (c *client) apiError(ctx context.Context, err error, model string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var pe *patchError
	if errors.As(err, &pe) {
		return c.fail(sdk.ErrInvalidArgument, "%v", pe.err)
	}
	if errors.Is(err, errIdle) {
		return c.fail(sdk.ErrUnavailable, "%s: %v", c.endpoint, errIdle)
	}
	status := 0
	var retry time.Duration
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil {
		status = re.Response.StatusCode
		retry = httpkit.RetryAfter(re.Response.Header, time.Now())
	}
	var b strings.Builder
	var kind error
	var api smithy.APIError
	switch {
	case errors.As(err, &api):
		code := api.ErrorCode()
		if status > 0 {
			b.WriteString(httpkit.StatusText(&http.Response{StatusCode: status}) + ": ")
		}
		b.WriteString(code)
		if m := httpkit.OneLine(api.ErrorMessage(), 300); m != "" {
			b.WriteString(": " + m)
		}
		if code == "ResourceNotFoundException" && model != "" {
			b.WriteString(" (model " + strconv.Quote(model) + " at " + c.endpoint + ")")
		}
		b.WriteString(hint(code))
		kind = kindForCode(code)
		if kind == nil && status >= 400 {
			kind = httpkit.KindForStatus(status)
		}
		if kind == nil {
			kind = sdk.ErrUnavailable
		}
	case status >= 400:
		b.WriteString(httpkit.StatusText(&http.Response{StatusCode: status}) + " from " + c.endpoint)
		kind = httpkit.KindForStatus(status)
	case isCredentialError(err):
		b.WriteString("no AWS credentials found: set access_key_id and secret_access_key on the client, a profile, or the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY variables")
		if m := lastCause(err); m != "" {
			b.WriteString(" (" + m + ")")
		}
		kind = sdk.ErrUnauthenticated
	default:
		var ue *url.Error
		var ne net.Error
		if errors.As(err, &ue) || errors.As(err, &ne) {
			b.WriteString("cannot reach " + c.endpoint + ": " + lastCause(err))
			kind = sdk.ErrUnavailable
		} else {
			b.WriteString("the reply from " + c.endpoint + " is not Bedrock's: " + lastCause(err))
			kind = sdk.ErrBadResponse
		}
	}
	b.WriteString(httpkit.RetryNote(retry))
	return sdk.WithRetryAfter(c.fail(kind, "%s", b.String()), retry)
}

// isCredentialError reports whether err is the AWS client failing to find
// or refresh credentials.
func isCredentialError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "failed to refresh cached credentials") || strings.Contains(s, "failed to retrieve credentials") ||
		strings.Contains(s, "no EC2 IMDS role found") || strings.Contains(s, "static credentials are empty")
}

// lastCause is the innermost message of an AWS client error, without the
// "operation error Bedrock Runtime: Converse, ..." wrapping.
func lastCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	return httpkit.OneLine(err.Error(), 300)
}
