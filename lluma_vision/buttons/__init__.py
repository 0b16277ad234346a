"""What is a button and why: the rules (rules/, one file per family) say evidence about each block, one resolver
(resolve) applies it and keeps the trace, output turns blocks and icons into device-pixel Buttons and TextLines,
explain prints the trace (`lluma vision --explain`)."""
