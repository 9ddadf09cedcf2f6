"""Training of the shipped networks (PyTorch and ultralytics; install the ``train`` extra).

``python -m vision.train all|detector|reader`` (see :mod:`vision.train.detector` for the command
line). Nothing on the serving path imports this package: the app runs the exported ONNX files.

- :mod:`vision.train.detector`: the detector's data folder, its training and the command line;
- :mod:`vision.train.all_stages`: the whole tile model under one time budget (``all``);
- :mod:`vision.train.reader`, :mod:`vision.train.reader_net`, :mod:`vision.train.reader_data`:
  the reader network, its samples and its training loop;
- :mod:`vision.train.dice_reader`: the dice reader on the same network and loop;
- :mod:`vision.train.yolo_env`: offline set-up for ultralytics;
- :mod:`vision.train.onnx_compact`: float16 storage of the exported weights.
"""
