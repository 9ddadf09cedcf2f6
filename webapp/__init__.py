"""The web app's parts: the SQLite store, the JSON routes, the page (``static/``), HTTPS helper.

``app.py`` at the top level puts them together and is what players run.
"""

__version__ = "0.1.0"
