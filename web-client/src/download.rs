//! Saving text from the page as a file: a `data:` URL on a temporary
//! anchor with `download` set (no Blob URL to revoke, and nothing the
//! page's Content-Security-Policy forbids).

use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

/// Offers `text` as a download named `name` of MIME type `mime`.
pub fn text_file(name: &str, mime: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(a) = doc.create_element("a") else {
        return;
    };
    let href = format!(
        "data:{mime};charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(text))
    );
    let _ = a.set_attribute("href", &href);
    let _ = a.set_attribute("download", name);
    let _ = a.set_attribute("hidden", "");
    if let (Some(body), Some(el)) = (doc.body(), a.dyn_ref::<HtmlElement>()) {
        let _ = body.append_child(&a);
        el.click();
        let _ = body.remove_child(&a);
    }
}
