package model

import "slices"

// CacheCheckpoint names one prompt-cache checkpoint a request can ask for
// (a field of [CacheCheckpoints]). Responses list the checkpoints an adapter
// could not place in [Response.IgnoredCheckpoints].
type CacheCheckpoint string

// The cache checkpoints, spelled like the JSON fields of [CacheCheckpoints].
const (
	// CheckpointAfterSystem is CacheCheckpoints.AfterSystem: a checkpoint
	// at the end of the system prompt.
	CheckpointAfterSystem CacheCheckpoint = "after_system"
	// CheckpointAfterTools is CacheCheckpoints.AfterTools: a checkpoint at
	// the end of the tool definitions.
	CheckpointAfterTools CacheCheckpoint = "after_tools"
)

// Requested returns the checkpoints c asks for, [CheckpointAfterSystem]
// first; nil when it asks for none.
func (c CacheCheckpoints) Requested() []CacheCheckpoint {
	var out []CacheCheckpoint
	if c.AfterSystem {
		out = append(out, CheckpointAfterSystem)
	}
	if c.AfterTools {
		out = append(out, CheckpointAfterTools)
	}
	return out
}

// AddCheckpoints returns list followed by the checkpoints of add it does
// not hold yet, in order and without repeats. It is how a client that
// wraps another (or runs several provider requests in one invocation)
// gathers the IgnoredCheckpoints of the responses it combines.
func AddCheckpoints(list []CacheCheckpoint, add ...CacheCheckpoint) []CacheCheckpoint {
	for _, cp := range add {
		if !slices.Contains(list, cp) {
			list = append(list, cp)
		}
	}
	return list
}
