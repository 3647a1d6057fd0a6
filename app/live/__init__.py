"""Live games: the stream records a game's log turns into, the reads a stream makes, and the
process's hub, on an event loop, that pushes new records to every open stream and wakes the
long polls of seeks (with the limit on streams a worker holds, and the ways a request hands
its waiting to the hub: from the entrance's loop, or from a thread)."""
