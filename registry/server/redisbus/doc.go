// Package redisbus is the bus of registry nodes that share a Redis store
// (registry/store/redisstore): calls waiting for a provider go to one Redis
// stream per registration token, read by a consumer group in which each
// provider lease is a consumer, so any node can accept a call and the node
// holding the provider's stream takes it; nodes announce settlements and
// catalog changes to each other on a pub/sub channel.
//
// Invariants:
//   - A call taken by a node that dies before acknowledging it is claimed
//     again by a live lease after ClaimIdle; the store's PublishCall
//     publishes it once, whoever takes it.
//   - Announcements may be lost (pub/sub keeps nothing); the registry
//     polls what it waits on, so a lost one only costs time.
package redisbus
