//! Talking to the relay's scenario API ([`relay_server::api`]'s routes)
//! and the clipboard. Requests run as futures; each result lands in a
//! [`Mailbox`] the main loop polls once per frame.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Request, RequestInit, Response};

/// A one-slot mailbox written by a future and taken by the main loop.
pub type Mailbox<T> = Rc<RefCell<Option<T>>>;

/// What a finished request brought back.
#[derive(Debug)]
pub enum Reply {
    /// `POST /api/scenarios` stored it under this id.
    Saved(String),
    /// `GET /api/scenarios/{id}` (or another `GET`) returned these bytes.
    Loaded(Vec<u8>),
    /// The request failed; the reason is for the user.
    Failed(String),
}

/// Where the page's scenario links point: `<origin>/s/{id}` and
/// `<origin>/#s=<fragment>`.
pub fn origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// The id in a `/s/{id}` path, if the page was opened by a share link.
pub fn id_from_path() -> Option<String> {
    let path = web_sys::window()?.location().pathname().ok()?;
    let id = path.strip_prefix("/s/")?.trim_end_matches('/');
    (!id.is_empty()).then(|| id.to_owned())
}

/// The scenario text in a `#s=<fragment>` hash, if any.
pub fn fragment() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#s=").map(str::to_owned)
}

async fn request(req: Request) -> Result<(u16, Response), String> {
    let window = web_sys::window().ok_or("no window")?;
    let res = JsFuture::from(window.fetch_with_request(&req))
        .await
        .map_err(|_| "the relay did not answer (is this a static copy of the page?)".to_owned())?;
    let res: Response = res.dyn_into().map_err(|_| "not a response")?;
    Ok((res.status(), res))
}

async fn body_bytes(res: &Response) -> Result<Vec<u8>, String> {
    let buf = res.array_buffer().map_err(|_| "unreadable body")?;
    let buf = JsFuture::from(buf).await.map_err(|_| "unreadable body")?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// A string field of a JSON body (parsed by the browser's `JSON.parse`).
async fn json_field(res: &Response, field: &str) -> Option<String> {
    let text = String::from_utf8(body_bytes(res).await.ok()?).ok()?;
    let value = js_sys::JSON::parse(&text).ok()?;
    js_sys::Reflect::get(&value, &field.into())
        .ok()?
        .as_string()
}

/// The `error` field of an API error body, or the status.
async fn api_error(status: u16, res: &Response) -> String {
    match json_field(res, "error").await {
        Some(reason) => format!("{reason} (HTTP {status})"),
        None => format!("HTTP {status}"),
    }
}

/// Starts `POST /api/scenarios` with the compact bytes; the reply lands in
/// `mailbox`.
pub fn save(bytes: Vec<u8>, mailbox: Mailbox<Reply>) {
    post("/api/scenarios".to_owned(), Some(bytes), mailbox);
}

/// Starts `POST url` (with `bytes` as `application/octet-stream`, if
/// any); a `201` answer's `id` lands in `mailbox` as [`Reply::Saved`].
pub fn post(url: String, bytes: Option<Vec<u8>>, mailbox: Mailbox<Reply>) {
    wasm_bindgen_futures::spawn_local(async move {
        let reply = async {
            let init = RequestInit::new();
            init.set_method("POST");
            if let Some(bytes) = &bytes {
                init.set_body(&js_sys::Uint8Array::from(bytes.as_slice()));
            }
            let req = Request::new_with_str_and_init(&url, &init).map_err(|_| "bad request")?;
            if bytes.is_some() {
                let _ = req
                    .headers()
                    .set("Content-Type", "application/octet-stream");
            }
            let (status, res) = request(req).await?;
            if status != 201 {
                return Err(api_error(status, &res).await);
            }
            json_field(&res, "id")
                .await
                .ok_or_else(|| "the relay's answer has no id".to_owned())
        }
        .await;
        *mailbox.borrow_mut() = Some(reply.map_or_else(Reply::Failed, Reply::Saved));
    });
}

/// Starts `GET /api/scenarios/{id}` for the compact bytes; the reply
/// lands in `mailbox`.
pub fn load(id: String, mailbox: Mailbox<Reply>) {
    let missing =
        format!("no scenario with id {id} on this relay (mistyped link, or a different relay)");
    get_bytes(format!("/api/scenarios/{id}"), missing, mailbox);
}

/// Starts `GET url` for its bytes (`Accept: application/octet-stream`);
/// a 404 without a reason of its own says `missing`. The reply lands in
/// `mailbox`.
pub fn get_bytes(url: String, missing: String, mailbox: Mailbox<Reply>) {
    wasm_bindgen_futures::spawn_local(async move {
        let reply = async {
            let req = Request::new_with_str(&url).map_err(|_| "bad request")?;
            let _ = req.headers().set("Accept", "application/octet-stream");
            let (status, res) = request(req).await?;
            match status {
                200 => body_bytes(&res).await,
                404 => Err(json_field(&res, "error").await.unwrap_or(missing)),
                _ => Err(api_error(status, &res).await),
            }
        }
        .await;
        *mailbox.borrow_mut() = Some(reply.map_or_else(Reply::Failed, Reply::Loaded));
    });
}

/// Puts `text` on the clipboard (best effort: browsers refuse without a
/// user gesture or permission; the link stays selectable in the page).
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}
