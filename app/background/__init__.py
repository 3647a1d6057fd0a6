"""Work no request waits for: the bot runner plays games of bots alone in bounded slices, and the
sweeper ends turns whose clock ran out while nobody asked."""
