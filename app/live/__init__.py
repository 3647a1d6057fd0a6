"""Live games: the stream records a game's log turns into, the reads a stream makes, and the
process's hub that pushes new records to every open stream (with its socket outlets and the
limit on streams a worker holds)."""
