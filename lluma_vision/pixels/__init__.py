"""What is read from pixels: the frame at working scale and its OCR lines (ocr), a game between flat bars (bars),
lines into blocks and the shapes around them (layout, plates), the viewport and scrollbar (heuristics), icons by
glyph, gauges by shape, the tab bar. Working pixels throughout; nothing here decides what is a button."""
