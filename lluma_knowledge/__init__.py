"""The starter set of knowledge: the YAML files in this folder (see README.md here). Not code: a package only so
that an install carries the files and `lluma_agent.context.knowledge` finds them by name."""
