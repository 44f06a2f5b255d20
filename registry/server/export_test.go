package server

// LegacyDigestForTest exposes the digest calls were recorded under before
// sha256v2, for the tests of retries spanning the upgrade.
var LegacyDigestForTest = legacyDigest
