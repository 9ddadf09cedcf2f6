"""JSON routes for taught tile profiles: teach the reader a player's edition, list, delete, add a tile.

A player whose tiles read badly lays them out in rows, photographs them and types them row by row
(:mod:`vision.teach`); the profile is kept in the app's database (:class:`webapp.store.Store`, one
row per profile, written in one transaction) and any photo route reads with it when its
``profile`` field names it. After a correction, one tile can be added (:mod:`vision.teach_tile`).
Teaching and adding are refused (422, with the sentence) when they would read the held-back crops
worse; nothing is written then.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, UploadFile

from referee.i18n import _
from webapp.api import PHOTO_ERRORS, read_upload, require_reader, tag_routes
from webapp.runtime import Runtime, get_runtime
from webapp.schemas import DeletedOut, ErrorOut, ProfileListOut, ProfileTaughtOut, TileAddedOut
from webapp.store import NotFoundError, ProfileRecord, StoreError, clean_profile_name

__all__ = ["router", "profile_out"]

router = APIRouter(prefix="/api")

PROFILE_ERRORS: dict[int | str, dict[str, Any]] = {
    **PHOTO_ERRORS,
    404: {"model": ErrorOut, "description": "No profile of that name."},
    409: {"model": ErrorOut, "description": "The profile changed meanwhile (taught from another phone)."},
    422: {"model": ErrorOut, "description": "Refused: the typed rows do not match the photo, a bad tile code, or the "
                                            "profile would read the held-back crops worse. The sentence says which."},
}


def profile_out(record: ProfileRecord) -> dict[str, Any]:
    """What the page shows of a stored profile."""
    meta = record.meta
    check = dict(meta.get("check", {}))
    return {"name": record.name, "taught": list(meta.get("taught", [])), "examples": int(meta.get("examples", 0)),
            "photos": int(meta.get("photos", 0)), "added_tiles": int(check.get("added_tiles", 0)), "check": check,
            "created_at": record.created_at, "updated_at": record.updated_at}


def _name(name: str) -> str:
    try:
        return clean_profile_name(name)
    except StoreError as exc:  # a name that can't be one is bad input, not a conflict
        raise HTTPException(422, str(exc)) from None


def _teaching_reader(rt: Runtime) -> Any:
    reader = require_reader(rt)
    if not hasattr(reader, "model"):
        raise HTTPException(503, _("This server's tile reader can't be taught: start it with the shipped models."))
    return reader


def _stored(rt: Runtime, name: str) -> tuple[ProfileRecord | None, Any]:
    """The stored record and its Profile, or (None, None) when there is none of that name."""
    try:
        record = rt.store.get_profile(name)
    except NotFoundError:
        return None, None
    return record, rt.taught_profile(record.name)


@router.get("/profiles", response_model=ProfileListOut, summary="Taught tile profiles")
async def list_profiles(rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    """Every profile taught on this server, by name."""
    return {"profiles": [profile_out(r) for r in rt.store.list_profiles()]}


@router.post("/profiles", response_model=ProfileTaughtOut, status_code=201, responses=PROFILE_ERRORS,
             summary="Teach the reader your tiles")
async def teach_profile(
    photo: UploadFile = File(description="Your tiles laid out in rows, photographed from above."),
    tiles: str = Form(max_length=2000, description='The tiles row by row, top to bottom, | between rows: '
                                                   '"R1 R2 R3 | O1 O2 O3".'),
    name: str = Form(max_length=100, description="The profile's name: a new one is made, an existing one gets this "
                                                 "photo added."),
    rt: Runtime = Depends(get_runtime),
) -> dict[str, Any]:
    """Match every tile found on the photo to the rows typed, and teach them into the profile.

    A count that does not match (rows, or tiles in a row) is a 422 naming the row; a profile that
    would read its held-back crops worse than the reader alone is refused (422). Nothing is written then.
    """
    clean = _name(name)
    reader = _teaching_reader(rt)
    data = await read_upload(photo, rt.settings.max_upload_bytes)

    def work() -> dict[str, Any]:
        from vision.profile import profile_to_bytes
        from vision.teach import teach

        record, previous = _stored(rt, clean)
        profile, result = teach(data, tiles, None, reader, save=False, previous=previous)
        if record is not None:
            profile.created = record.meta.get("created", "")
        meta, prototypes, held_back = profile_to_bytes(profile)
        saved = rt.store.save_profile(record.name if record else clean, meta, prototypes, held_back,
                                      record.revision if record else None)
        summary = _('Taught {tiles} tiles into "{name}" in {seconds} s: {with_profile} of the held-back views read right '
                    "with it, {alone} with the reader alone.").format(
            tiles=result.tiles, name=saved.name, seconds=f"{result.seconds:.1f}",
            with_profile=f"{result.with_profile:.0%}", alone=f"{result.reader_alone:.0%}")
        return {"profile": profile_out(saved), "result": result.to_dict(), "added": record is not None,
                "summary": summary}

    return await rt.run(work)


@router.delete("/profiles/{name}", response_model=DeletedOut, responses={404: {"model": ErrorOut}},
               summary="Delete a taught profile")
async def delete_profile(name: str, rt: Runtime = Depends(get_runtime)) -> dict[str, Any]:
    rt.store.delete_profile(name)
    return {"deleted": True, "detail": _('Profile "{name}" deleted.').format(name=" ".join(name.split()))}


def _box(text: str) -> tuple[float, float, float, float]:
    parts = text.replace("[", " ").replace("]", " ").replace(",", " ").split()
    try:
        values = [float(v) for v in parts]
    except ValueError:
        values = []
    if len(values) != 4:
        raise HTTPException(422, _('The tile\'s box is four numbers, x1 y1 x2 y2 in the photo\'s pixels, not "{box}".')
                            .format(box=text[:60]))
    return values[0], values[1], values[2], values[3]


@router.post("/profiles/{name}/tiles", response_model=TileAddedOut, status_code=201, responses=PROFILE_ERRORS,
             summary="Add one corrected tile to a profile")
async def add_profile_tile(
    name: str,
    photo: UploadFile = File(description="The photo the tile was read on."),
    box: str = Form(max_length=200, description="The tile's box in the reading: x1,y1,x2,y2 in the photo's pixels."),
    tile: str = Form(max_length=10, description="What the tile is, in notation (R7, J)."),
    rt: Runtime = Depends(get_runtime),
) -> dict[str, Any]:
    """Teach the profile one tile the player corrected. Refused (422, nothing written) when the
    profile with it would read the held-back crops of the tiles taught before worse."""
    xyxy = _box(box)
    reader = _teaching_reader(rt)
    data = await read_upload(photo, rt.settings.max_upload_bytes)

    def work() -> dict[str, Any]:
        from vision.image import decode_photo
        from vision.profile import profile_to_bytes
        from vision.teach_tile import add_tile

        record = rt.store.get_profile(name)
        profile = rt.taught_profile(record.name)
        decoded = decode_photo(data, max_bytes=rt.settings.max_upload_bytes, max_pixels=rt.settings.max_pixels)
        grown, added = add_tile(decoded, xyxy, tile, profile, reader)
        meta, prototypes, held_back = profile_to_bytes(grown)
        saved = rt.store.save_profile(record.name, meta, prototypes, held_back, record.revision)
        summary = _('{tile} added to "{name}": {after} of the held-back views read right with it ({before} before).').format(
            tile=added.tile, name=saved.name, after=f"{added.after:.0%}", before=f"{added.before:.0%}")
        return {"profile": profile_out(saved), **added.to_dict(), "summary": summary}

    return await rt.run(work)


tag_routes(router)
