#!/bin/sh
# The socat of @anthropic-ai/sandbox-runtime's network bridges (os-sandbox.ts names it as the
# runtime's socatPath where `setpriv --pdeathsig` works): each bridge dies with the process that
# started it, so a kill -9 of acphub leaves no socat behind. The same script runs inside the
# sandbox, where it ends the relays with the sandbox's shell.
exec setpriv --pdeathsig KILL -- socat "$@"
