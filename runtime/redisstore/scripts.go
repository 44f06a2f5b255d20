package redisstore

import (
	"embed"

	"github.com/redis/go-redis/v9"
)

// The scripts, one a file, each commented with its keys, arguments and
// reply.
//
//go:embed lua/*.lua
var luaFiles embed.FS

var (
	scriptSave   = script("save")
	scriptPut    = script("put")
	scriptTake   = script("take")
	scriptList   = script("list")
	scriptExpire = script("expire")

	scriptAppend     = script("append")
	scriptRuns       = script("runs")
	scriptStale      = script("stale")
	scriptExpireRuns = script("expireruns")
)

// script is lua/name.lua.
func script(name string) *redis.Script {
	b, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	return redis.NewScript(string(b))
}
