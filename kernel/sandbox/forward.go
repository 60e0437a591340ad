package sandbox

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Env names the inside kernel reads.
const (
	// EnvProxySocket is the path, inside, of the credential proxy's
	// socket.
	EnvProxySocket = "COYOTE_SANDBOX_PROXY"
	// EnvInside marks a process inside a sandbox (the original's name).
	EnvInside = "IS_SANDBOX"
)

// Forward listens on a loopback port and carries each connection to the
// proxy's Unix socket, so that the plugins inside (which speak HTTP over
// TCP, through HTTP_PROXY) reach it. Requests for other hosts go the
// same way and the proxy refuses them: inside, the proxy is the only way
// out.
type Forward struct {
	// URL is the loopback proxy URL for HTTP_PROXY.
	URL    string
	ln     net.Listener
	socket string
	wg     sync.WaitGroup
}

// StartForward starts the forwarder for the proxy at socket.
func StartForward(socket string) (*Forward, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &Forward{URL: "http://" + ln.Addr().String(), ln: ln, socket: socket}
	go f.serve()
	return f, nil
}

func (f *Forward) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.carry(c)
		}()
	}
}

// carry splices one connection to the socket. A CONNECT (an https URL
// through the proxy) is answered here: the proxy carries only routed
// plain-HTTP requests, so it is refused with a readable status.
func (f *Forward) carry(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	if peek, _ := br.Peek(8); string(peek) == "CONNECT " {
		req, err := http.ReadRequest(br)
		if err == nil {
			_, _ = io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"+
				"coyote sandbox proxy: "+req.Host+" is not reachable from the sandbox\n")
		}
		return
	}
	up, err := net.Dial("unix", f.socket)
	if err != nil {
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\ncoyote sandbox proxy: the kernel outside does not answer\n")
		return
	}
	defer up.Close()
	// HTTP never half-closes: whichever side ends first ends both (a
	// half-close passed on would make the proxy's server take the
	// request for abandoned and cancel it mid-reply).
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, br)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(c, up)
		done <- struct{}{}
	}()
	<-done
}

// Close stops accepting connections.
func (f *Forward) Close() { _ = f.ln.Close() }

// SecretEnvPrefix starts the variables that carry {{NAME}} secrets into a
// sandbox (the original's names): a placeholder for a secret the proxy
// fills in, or, where no proxy can, the value itself.
const SecretEnvPrefix = "COYOTE_SECRET_"

// SecretEnv is the variable of the secret name: COYOTE_SECRET_ and the
// name upper-cased, every character other than a letter or digit an
// underscore (notion-token → COYOTE_SECRET_NOTION_TOKEN).
func SecretEnv(name string) string {
	b := []byte(SecretEnvPrefix)
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	return string(b)
}
