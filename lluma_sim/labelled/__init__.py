"""The labelled real-game screenshots that tests and benchmarks hold vision to: where they are (screens), scoring a
reading against their button labels (buttons) and their fact labels (facts). Not part of the reading."""
