"""The rule families, one file each; a rule id is "family.name" (`text.number` lives in text.py). Each yields
`Evidence` and never writes a block: resolve.py applies it in its stage order."""
