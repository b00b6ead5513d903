#!/bin/sh
# The socat of @anthropic-ai/sandbox-runtime (os-sandbox.ts names it as the runtime's socatPath
# where `setpriv --pdeathsig` works). The host-side bridges (UNIX-LISTEN, children of acphub)
# die with acphub, so a kill -9 leaves no socat behind; the relays inside the sandbox end with
# its PID namespace and start as plain socat.
case "$1" in
UNIX-LISTEN:*) exec setpriv --pdeathsig KILL -- socat "$@" ;;
esac
exec socat "$@"
