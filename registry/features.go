package registry

// FeatureFailureKind is the wire feature of a registry node that takes a
// failure's kind and recovery in post_result (error_kind, error_recovery)
// and returns them in call outcomes and records. A node lists the features
// it accepts in every lease it answers with (register, renew, drain:
// Features); a provider sends a feature's fields only to a node that lists
// it, since a node of an earlier version refuses fields it does not know.
const FeatureFailureKind = "failure_kind"
