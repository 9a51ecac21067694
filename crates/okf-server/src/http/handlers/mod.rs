//! The route handlers, one file per family of routes.

pub(crate) mod ask;
pub(crate) mod check;
pub(crate) mod delivery;
pub(crate) mod files;
pub(crate) mod reply;
pub(crate) mod status;
