package redisstore

import (
	"embed"

	"github.com/redis/go-redis/v9"
)

// The scripts, one a file, each commented; lua/common.lua is prepended to
// every one and lua/lifecycle.lua to the ones that end leases.
//
//go:embed lua/*.lua
var luaFiles embed.FS

var (
	scriptRegister   = lifecycleScript("register")
	scriptRelease    = lifecycleScript("release")
	scriptExpire     = lifecycleScript("expire")
	scriptUnregister = lifecycleScript("unregister")
	scriptRenew      = script("renew")
	scriptDrain      = script("drain")
	scriptRenewAll   = script("renew_all")
	scriptAccept     = script("accept")
	scriptPublish    = script("publish")
	scriptReturn     = script("return")
	scriptSettle     = script("settle")
	scriptPurge      = script("purge")
	scriptForget     = script("forget")
	scriptUnsettled  = script("unsettled")
)

func luaFile(name string) string {
	b, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	return string(b)
}

// script is lua/name.lua after common.lua.
func script(name string) *redis.Script {
	return redis.NewScript(luaFile("common") + "\n" + luaFile(name))
}

// lifecycleScript is lua/name.lua after common.lua and lifecycle.lua.
func lifecycleScript(name string) *redis.Script {
	return redis.NewScript(luaFile("common") + "\n" + luaFile("lifecycle") + "\n" + luaFile(name))
}
