# Runs a command in a pseudo-terminal (80x24, or PTY_SIZE=COLSxROWS) and relays bytes: our stdin to the terminal, the
# terminal's output to our stdout. Exits with the command's exit code.
import fcntl, os, pty, select, struct, sys, termios

pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
cols, rows = (int(n) for n in os.environ.get("PTY_SIZE", "80x24").split("x"))
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
stdin_open = True
while True:
    readers = [fd] + ([0] if stdin_open else [])
    ready, _, _ = select.select(readers, [], [])
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
