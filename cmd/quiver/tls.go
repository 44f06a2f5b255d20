package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/internal/httpguard"
)

// tlsFlags are --tls-cert, --tls-key and --insecure-http, shared by the
// commands that listen (quiver serve, quiver registry serve): bearer keys
// cross the network only encrypted, unless a proxy in front terminates TLS.
type tlsFlags struct {
	cert, key    string
	insecureHTTP bool
}

func (f *tlsFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.cert, "tls-cert", "", "serve HTTPS with the certificate chain in PEM `FILE` (with --tls-key)")
	fl.StringVar(&f.key, "tls-key", "", "the private key in PEM `FILE` of --tls-cert")
	fl.BoolVar(&f.insecureHTTP, "insecure-http", false, "serve plain HTTP on a non-loopback --addr: a proxy in front terminates TLS")
}

// check validates the flags for a listener on host: both files or
// neither, and a non-loopback host served over TLS unless --insecure-http
// says a proxy terminates it.
func (f *tlsFlags) check(host string) error {
	if (f.cert == "") != (f.key == "") {
		return usagef("--tls-cert and --tls-key go together: pass both, or neither")
	}
	if f.cert != "" && f.insecureHTTP {
		return usagef("--insecure-http serves plain HTTP: drop it, or drop --tls-cert and --tls-key")
	}
	if f.cert == "" && !f.insecureHTTP && !httpguard.LoopbackHost(host) {
		return usagef("--addr %s is not a loopback address: API keys would cross the network in clear. Pass --tls-cert FILE --tls-key FILE, or --insecure-http when a proxy in front terminates TLS", host)
	}
	return nil
}

// enabled reports whether the listener serves HTTPS.
func (f *tlsFlags) enabled() bool { return f.cert != "" }

// scheme is the URL scheme the listener serves.
func (f *tlsFlags) scheme() string {
	if f.enabled() {
		return "https"
	}
	return "http"
}

// config loads the certificate, so that a bad file fails before the
// banner, not at the first connection: nil when the flags serve plain
// HTTP.
func (f *tlsFlags) config() (*tls.Config, error) {
	if !f.enabled() {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", f.cert, f.key, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// configure loads the certificate into hs (see config).
func (f *tlsFlags) configure(hs *http.Server) error {
	c, err := f.config()
	hs.TLSConfig = c
	return err
}

// serve serves hs on ln, over TLS when the flags ask.
func (f *tlsFlags) serve(hs *http.Server, ln net.Listener) error {
	if f.enabled() {
		return hs.ServeTLS(ln, "", "")
	}
	return hs.Serve(ln)
}
