"""Whether a round shape holds a face: a support card's portrait shows its character (FACTS: "the support cards on it
as portraits in a right-hand column"), the scenery's circles (a gym's weight plates, a wheel) show none.

A face is skin: lit, warm, pale pixels (OpenCV HSV: hue under SKIN_HUE, saturation SKIN_S, value at least SKIN_V)
over SKIN_SHARE of the disc inside FACE_R of the circle's radius.
"""

from __future__ import annotations

import cv2
import numpy as np

# The skin of the game's drawn faces (anime skin: ffe6d7-ffd2b9 and its shading), as OpenCV HSV (hue 0..179).
# not measured one by one: the warm pale range that holds every real card's face on screens2 (the shares below)
SKIN_HUE = 25
SKIN_S = (15, 110)
SKIN_V = 180
FACE_R = 0.7  # the disc looked at, a share of the radius: inside the ring (rainbow, white) and the hint badge
# The share of that disc that is skin, measured on the circles portraits.find_portraits returns, every scale the
# vision bench uses (0.4x, 0.575x, 0.75x, 1x, 1.5x). Chosen on screens2 and the simulator, screens held out:
# screens2's eight real cards 0.187-0.452 (the lowest a face under a cap of hair), the simulator's 0.47-0.58; the gym's
# weight plates on screens2's Learn screen 0.0. Held out, screens' gym (missions_scrollbar_mid) 0.0-0.075: no face.
SKIN_SHARE = 0.12


def face_share(rgb: np.ndarray, cx: float, cy: float, r: float) -> float:
    """The share of skin pixels in the disc of FACE_R * r around (cx, cy) (working pixels)."""
    h, w = rgb.shape[:2]
    rr = FACE_R * r
    x0, x1 = max(0, int(cx - rr)), min(w, int(cx + rr) + 1)
    y0, y1 = max(0, int(cy - rr)), min(h, int(cy + rr) + 1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return 0.0
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= rr * rr
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb[y0:y1, x0:x1]), cv2.COLOR_RGB2HSV)[disc]
    skin = (hsv[:, 0] <= SKIN_HUE) & (hsv[:, 1] >= SKIN_S[0]) & (hsv[:, 1] <= SKIN_S[1]) & (hsv[:, 2] >= SKIN_V)
    return float(skin.mean()) if len(skin) else 0.0


def has_face(rgb: np.ndarray, cx: float, cy: float, r: float) -> bool:
    return face_share(rgb, cx, cy, r) >= SKIN_SHARE
