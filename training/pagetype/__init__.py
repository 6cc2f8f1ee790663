"""Train the screenshot page-type classifier shipped in ``extractors/models/``.

``python -m training.pagetype render``   render every labelled page once (Chromium)
``python -m training.pagetype train``    fit the CNN (torch, CPU) and export numpy weights
``python -m training.pagetype evaluate`` score the shipped weights on the real test pages
"""
