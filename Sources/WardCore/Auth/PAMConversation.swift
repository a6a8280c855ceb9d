import CPAM
import Glibc

/// One PAM transaction's conversation: answers PAM's password prompt with the password Ward's
/// own no-echo prompt already read, and keeps PAM's messages for Ward to show.
///
/// Why not let PAM prompt on the terminal itself: Ward's prompt is where every key passes the
/// chain (redacted) and the idle rules hold, and where nothing from outside Ward writes to the
/// terminal unsanitized. So the password is typed once, into Ward, and this class hands it to
/// PAM when PAM asks for it.
///
/// Ward can answer one question: the first hidden prompt (`PAM_PROMPT_ECHO_OFF`), with the
/// password. A second hidden prompt (a new password, a one-time code) or a visible one
/// (`PAM_PROMPT_ECHO_ON`) fails the conversation, and `unanswered` holds what PAM asked, for a
/// message that says the service must ask for one password only.
///
/// - Important: The password is lent for the transaction only (`password` points into the
///   caller's `Password`). The one copy made, the response PAM owns, is `malloc`ed as PAM
///   requires and freed (and zeroed) by PAM; a copy made for a failed conversation is zeroed
///   and freed here.
final class PAMConversation {
    /// The typed password's bytes, valid during the transaction.
    private let password: UnsafeBufferPointer<UInt8>
    /// Whether PAM has had the password already.
    private var answered = false
    /// PAM's informational and error messages, in order; raw text, sanitized when shown.
    private(set) var messages: [String] = []
    /// The prompt Ward could not answer, if there was one.
    private(set) var unanswered: String?

    init(password: UnsafeBufferPointer<UInt8>) {
        self.password = password
    }

    /// The `pam_conv` for `pam_start`, calling back into this object through `appdata_ptr`.
    /// The object must outlive the transaction (`pam_end`).
    func makeConv() -> pam_conv {
        pam_conv(conv: pamConversationFunction, appdata_ptr: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Answers `messages`, filling `responses` (one per message, allocated by the caller).
    /// Returns false when a prompt cannot be answered.
    fileprivate func answer(_ style: Int32, _ text: String, into response: UnsafeMutablePointer<pam_response>?) -> Bool
    {
        switch style {
        case PAM_PROMPT_ECHO_OFF where !answered && response != nil:
            guard let copy = passwordCopy() else { return false }
            answered = true
            response?.pointee.resp = copy
            response?.pointee.resp_retcode = 0
            return true
        case PAM_TEXT_INFO, PAM_ERROR_MSG:
            if !text.isEmpty { messages.append(text) }
            return true
        default:
            unanswered = text
            return false
        }
    }

    /// The password as a NUL-terminated `malloc` block, for PAM to own and free.
    private func passwordCopy() -> UnsafeMutablePointer<CChar>? {
        guard let block = malloc(password.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
        if let base = password.baseAddress, password.count > 0 {
            memcpy(block, base, password.count)
        }
        block[password.count] = 0
        return block
    }
}

/// PAM's conversation callback: a C function, so it captures nothing; the conversation comes
/// through `appdata_ptr`. Responses are `calloc`ed here, as Linux-PAM frees them; on failure
/// each answer already made is zeroed and freed, and PAM gets `PAM_CONV_ERR` and nothing else.
///
/// `responses` may be null: pam_matrix passes none with a message that wants no answer.
private let pamConversationFunction:
    @convention(c) (
        Int32,
        UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
        UnsafeMutableRawPointer?
    ) -> Int32 = { count, messages, responses, context in
        guard count > 0, count <= PAM_MAX_NUM_MSG, let messages, let context else { return PAM_CONV_ERR }
        let conversation = Unmanaged<PAMConversation>.fromOpaque(context).takeUnretainedValue()
        var answers: UnsafeMutablePointer<pam_response>?
        if responses != nil {
            answers = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(to: pam_response.self)
            if answers == nil { return PAM_BUF_ERR }
        }
        for i in 0..<Int(count) {
            guard let message = messages[i] else { return failed(answers, count) }
            let text = message.pointee.msg.map { String(cString: $0) } ?? ""
            if !conversation.answer(message.pointee.msg_style, text, into: answers.map { $0 + i }) {
                return failed(answers, count)
            }
        }
        responses?.pointee = answers
        return PAM_SUCCESS
    }

/// Zeroes and frees every answer made so far and the array, and says the conversation failed.
private func failed(_ answers: UnsafeMutablePointer<pam_response>?, _ count: Int32) -> Int32 {
    if let answers {
        for i in 0..<Int(count) {
            if let text = answers[i].resp {
                explicit_bzero(text, strlen(text))
                free(text)
            }
        }
        free(answers)
    }
    return PAM_CONV_ERR
}
