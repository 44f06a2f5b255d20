package bedrock

import (
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
)

// guardBodies wraps the SDK's HTTP client so that request bodies reach
// net/http without their WriteTo method.
//
// Why: smithy-go closes a request's body as soon as the response headers
// arrive (transport/http ClientHandler.Handle), while net/http's write
// loop may still be reading that body for the bytes past its
// Content-Length. Its safe body then answers WriteTo — which io.Copy
// prefers — with io.EOF as an error; net/http takes it for a failed write
// and closes the connection, under the response being read. A streamed
// answer then breaks off ("use of closed network connection") at random,
// and a Converse answer can too. Read, which the wrapper leaves, returns
// io.EOF after the close, which net/http takes for the body's end.
func guardBodies(hc bedrockruntime.HTTPClient) bedrockruntime.HTTPClient {
	return bodyGuard{hc}
}

// bodyGuard is an HTTP client whose requests' bodies are readOnly.
type bodyGuard struct{ next bedrockruntime.HTTPClient }

// Do sends req with its body wrapped.
func (g bodyGuard) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = readOnly{req.Body}
	}
	return g.next.Do(req)
}

// readOnly hides every method of a body but Read and Close.
type readOnly struct{ io.ReadCloser }
