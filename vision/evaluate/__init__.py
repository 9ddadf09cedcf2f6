"""Measurements of the shipped models and of the stages after them (tools, not the serving path).

- ``python -m vision.evaluate FOLDER``: accuracy of the tile model on a labelled folder
  (:mod:`vision.evaluate.tiles`);
- ``python -m vision.evaluate.layout``: how well the layout rebuilds sets on real photos;
- ``python -m vision.evaluate.decode``: what rule-aware decoding fixes and spoils;
- ``python -m vision.evaluate.dice``: the dice reader on rendered scenes;
- ``python -m vision.evaluate.bench``: speed of reading a photo, against ultralytics' own predict;
- ``python -m vision.evaluate.teach``: whether a taught profile helps, and never hurts;
- ``python -m vision.evaluate.tune``: the detection thresholds, chosen on validation photos;
- ``python -m vision.evaluate.follow``: the live referee on rendered whole games.
"""
