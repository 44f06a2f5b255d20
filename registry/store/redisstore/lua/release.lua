-- release.lua: Release. ARGV[4] lease id. A lease past its expiry that
-- was not ended yet is ended as released; a lease that ended already is
-- left alone. Reply: {'ok', effects...}.
end_lease(ARGV[4], 'was released')
return {'ok', effects()}
