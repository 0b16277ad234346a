"""The facts a reading gives besides buttons: what kind of frame (cinematic), captioned values and gains (values,
captioned, re-read where OCR missed: reread), their plausibility (checks), loose text joined to its owner
(associate), which screen it is (screen, story), and the compact form the model sees (compact)."""
