
// Client runs the agent on a runtime it was registered on.
type Client struct {
	rt *runtime.Runtime
}

// NewClient returns a client running the agent on rt; register the agent
// first (Register{{ .GoName }}Agent).
func NewClient(rt *runtime.Runtime) *Client { return &Client{rt: rt} }

// Run starts a run of the agent and waits for it to complete or suspend.
func (c *Client) Run(ctx context.Context, in runtime.RunInput, opts ...runtime.RunOption) (*runtime.RunOutput, error) {
	return c.rt.Run(ctx, Name, in, opts...)
}

// Start starts a run of the agent in a session and returns at once.
func (c *Client) Start(ctx context.Context, in runtime.RunInput, opts ...runtime.RunOption) (*runtime.RunHandle, error) {
	return c.rt.Start(ctx, Name, in, opts...)
}

// StartOneShot starts a run of the agent outside any session: no history
// is loaded or saved.
func (c *Client) StartOneShot(ctx context.Context, in runtime.RunInput, opts ...runtime.RunOption) (*runtime.RunHandle, error) {
	return c.rt.StartOneShot(ctx, Name, in, opts...)
}

// Continue answers the first pending item of a suspended run and starts its
// continuation; the run keeps the agent it started with.
func (c *Client) Continue(ctx context.Context, runID string, resp runtime.PendingInputResponse) (*runtime.RunHandle, error) {
	return c.rt.Continue(ctx, runID, resp)
}
