// Package temporal runs the runtime's workflows and activities on
// Temporal (https://temporal.io): runs are durable — a run whose worker
// process dies goes on on another worker — and distributed over the
// workers polling one task queue.
//
// It lives in a Go module of its own (github.com/quiver-go/quiver/engine/temporal)
// so that applications that do not use Temporal do not inherit its SDK.
//
// [NewWorker] returns an [Engine] that both starts workflows and executes
// them: give it to the runtime (runtime.WithEngine), which registers its
// workflows and activities, then [Engine.Start] it (or let the first run
// start it). [NewStarter] returns an engine that only starts workflows, for
// processes that run no worker. The application builds the client.Client
// (host, namespace, TLS, API key, data converter), so Temporal Cloud and
// payload encryption are configured where Temporal configures them.
//
// What crosses the contract:
//
//   - Inputs and outputs travel as bytes ([]byte payloads, the SDK's
//     binary/plain encoding), byte for byte what engine.Marshal produced:
//     no re-encoding escapes what a model will read.
//   - An activity's error reaches workflow code as an *engine.ActivityError
//     of type "error", "timeout", "canceled" or "panic", with the
//     non-retryable flag engine.NewNonRetryableError set; timeouts satisfy
//     errors.Is(err, engine.ErrTimeout), cancellations
//     errors.Is(err, engine.ErrCanceled).
//   - engine.ActivityOptions.StartToCloseTimeout (the runtime's
//     Timing.Plan and Timing.Tools) bounds one attempt; when it is zero,
//     [ActivityDefaults.StartToCloseTimeout] does. Retries follow
//     [ActivityDefaults.RetryPolicy] when it is set, otherwise the policy
//     the runtime asked for (one attempt when none).
//   - Activities heartbeat on their own every third of
//     [ActivityDefaults.HeartbeatTimeout], so a worker that dies is noticed
//     after that timeout rather than after the whole start-to-close one.
//   - StartRequest.Timeout (the run's time budget plus grace) becomes the
//     workflow execution timeout; engine.ChildOptions.Timeout the child
//     workflow's. Cancelling a workflow cancels its activities and
//     children; a child is also cancelled when its parent closes.
//   - A panic in workflow code fails its workflow task, which Temporal
//     retries (worker.Options.WorkflowPanicPolicy, BlockWorkflow by
//     default): a release that fixes the code continues the run. Set
//     FailWorkflow to end such runs instead, as engine/inmem does.
//   - WorkflowContext.Now is workflow.Now, Sleep is a durable timer,
//     IsReplaying is workflow.IsReplaying, GetVersion is
//     workflow.GetVersion.
//
// [Engine.ReplayHistory] replays a recorded history against the registered
// workflow code, to check a change before deploying it.
// [NewLargePayloadCodec], installed on the client, sends payloads over a
// threshold by reference to a [BlobStore] ([NewRedisBlobs]), so that a
// run's state of any size fits Temporal's payload limit; the client's other
// codecs (encryption) apply as usual. docs/temporal.md is the guide.
package temporal
