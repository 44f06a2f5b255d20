-- expire.lua: ExpireLeases. Every lease past its expiry ends, as Release
-- ends one. Reply: {'ok', effects...}.
expire()
return {'ok', effects()}
